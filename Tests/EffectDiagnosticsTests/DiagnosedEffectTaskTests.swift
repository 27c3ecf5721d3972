import EffectDiagnostics
import Foundation
@_spi(Integration) @_spi(Testing) import ReactiveDiagnostics
import Testing

/// `async` effects: alive until the operation returns; cancellation is cooperative.
@Suite("DiagnosedEffect.task: async effects")
struct DiagnosedEffectTaskTests {
    enum Action: Sendable, Equatable {
        case synced
        case results([String])
    }

    @Test func anAsyncEffectStillSuspendedAtTheCheckpointWasNeverCalledBack() async throws {
        let engine = makeEngine()
        let (pushes, server) = AsyncStream<Void>.makeStream()
        let outcome = await runAsyncTest(engine) {
            DiagnosedEffect<Action>.task("sync contacts") {
                for await _ in pushes {}  // waits for a server that never closes the stream
                return .synced
            }.run(engine: engine) { _ in }
        }
        let finding = try onlyFinding(outcome, .callbackNeverCalled)
        expectEvidence(engine, finding, kind: .callbackNeverCalled, label: "sync contacts", test: outcome.test)
        #expect(finding.details["count"] == "1")
        #expect(outcome.findings.count == 1)
        server.finish()
        await eventually { engine.ledger.liveCount(of: .callback) == 0 }
        #expect(engine.findings().count == 1, "finishing later adds nothing")
    }

    @Test func anAsyncEffectSendsItsActionOnTheMainQueue() async {
        let engine = makeEngine()
        let received = Recorder<(Action, Bool)>()
        let outcome = await runAsyncTest(engine) {
            DiagnosedEffect<Action>.task("search") {
                try? await Task.sleep(for: .milliseconds(10))
                return .results(["swift"])
            }.run(expecting: .mainQueue, engine: engine) { received.append(($0, MainQueue.isCurrent)) }
            await eventually { received.count == 1 }
        }
        #expect(outcome.findings.isEmpty)
        #expect(received.all.map(\.0) == [.results(["swift"])])
        #expect(received.all.map(\.1) == [true])
        #expect(engine.ledger.liveCount(of: .callback) == 0)
    }

    @Test func aCancelledAsyncEffectEndsWhenItsOperationReturnsAndItsActionIsDropped() async {
        let engine = makeEngine()
        let (keystrokes, keyboard) = AsyncStream<Void>.makeStream()
        let received = Recorder<Action>()
        let sawCancellation = Recorder<Bool>()
        let outcome = await runAsyncTest(engine) {
            let run = DiagnosedEffect<Action>.task("search") {
                for await _ in keystrokes {}  // ends when the task is cancelled
                sawCancellation.append(Task.isCancelled)
                return .results(["stale"])
            }.run(engine: engine) { received.append($0) }
            #expect(engine.ledger.liveCount(of: .callback) == 1)
            run.cancel()
            await eventually { engine.ledger.liveCount(of: .callback) == 0 }
        }
        #expect(outcome.findings.isEmpty)
        #expect(sawCancellation.all == [true])
        #expect(received.all.isEmpty, "the action of a cancelled effect never reaches the store")
        keyboard.finish()
    }

    @Test func anAsyncEffectIgnoringCancellationIsStillReported() async throws {
        let engine = makeEngine()
        let (uploads, uploader) = AsyncStream<Void>.makeStream()
        let outcome = await runAsyncTest(engine) {
            let run = DiagnosedEffect<Action>.task("upload log") {
                // An unstructured task does not inherit cancellation: this wait ignores it.
                await Task.detached { for await _ in uploads {} }.value
                return .synced
            }.run(engine: engine) { _ in }
            run.cancel()
        }
        let finding = try onlyFinding(outcome, .callbackNeverCalled)
        expectEvidence(engine, finding, kind: .callbackNeverCalled, label: "upload log", test: outcome.test)
        uploader.finish()
        await eventually { engine.ledger.liveCount(of: .callback) == 0 }
        #expect(engine.findings().count == 1, "\(engine.findings().map { engine.describe($0) })")
    }
}
