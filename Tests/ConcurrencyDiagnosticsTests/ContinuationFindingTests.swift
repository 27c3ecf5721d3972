import ConcurrencyDiagnostics
import Dispatch
import Foundation
import Testing

/// Each finding of diagnosed continuations, provoked by real Swift Concurrency code.
@Suite struct ContinuationFindingTests {
    @Test func aContinuationNeverResumedByTheEndIsFound() async throws {
        let engine = makeEngine()
        let api = SettingsAPI()
        let outcome = await runTest(engine) {
            Task { _ = await loadSettings(from: api, engine: engine) }  // the API never calls back
            await eventually("the load is waiting") { api.waiting == 1 }
        }
        api.respond("dark")  // let the task end after the check
        let finding = onlyFinding(outcome, .callbackNeverCalled)
        expectEvidence(
            finding, engine, kind: .callbackNeverCalled, label: "settings", outcome: outcome, function: "loadSettings")
        #expect(finding?.resourceKind == .continuation)
    }

    @Test func aContinuationReleasedWithoutAResumeIsFoundAtOnce() async throws {
        let engine = makeEngine()
        let outcome = await runTest(engine) {
            Task {
                await withDiagnosedContinuation("dropped", engine: engine) { (_: DiagnosedContinuation<Void, Never>) in
                    // A code path that returns without resuming: nothing keeps the continuation.
                }
            }
            await eventually("the continuation was released") { !engine.findings().isEmpty }
        }
        let finding = onlyFinding(outcome, .callbackNeverCalled)
        expectEvidence(finding, engine, kind: .callbackNeverCalled, label: "dropped", outcome: outcome)
        #expect(finding?.details["released"] == "true")
    }

    @Test func aSecondResumeIsAFindingInsteadOfACrash() async throws {
        let engine = makeEngine()
        let outcome = await runTest(engine) {
            let value = await withDiagnosedContinuation("twice", engine: engine) { continuation in
                continuation.resume(returning: 1)
                continuation.resume(returning: 2)  // the runtime would stop the process here
            }
            #expect(value == 1)
        }
        let finding = onlyFinding(outcome, .callbackCalledTwice)
        expectEvidence(finding, engine, kind: .callbackCalledTwice, label: "twice", outcome: outcome)
        #expect(finding?.details["resumes"] == "2" && finding?.eventStack.isCaptured == true)
    }

    @Test func aResumeOffTheExpectedExecutorIsFound() async throws {
        let engine = makeEngine()
        let outcome = try await runTest(engine) {
            let value: String = try await withDiagnosedThrowingContinuation(
                "callback", expecting: .mainQueue, engine: engine
            ) { continuation in
                DispatchQueue.global().async { continuation.resume(returning: "done") }
            }
            #expect(value == "done")
        }
        let finding = onlyFinding(outcome, .wrongThread)
        expectEvidence(finding, engine, kind: .wrongThread, label: "callback", outcome: outcome)
        #expect(finding?.details["event"] == "resume")
    }
}
