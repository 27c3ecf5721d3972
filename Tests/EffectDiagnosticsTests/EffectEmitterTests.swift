import Dispatch
import EffectDiagnostics
import Foundation
@_spi(Integration) import ReactiveDiagnostics
import Testing

/// Long-lived effects: `send* (finish | fail)` and a declared contract.
@Suite("DiagnosedEffect.stream: long-lived effects")
struct EffectEmitterTests {
    enum Action: Sendable, Equatable {
        case tick(Int)
        case done
    }

    @Test func aLongLivedEffectKeepingItsContractIsClean() async {
        let engine = makeEngine()
        let received = Recorder<Action>()
        let countdown = StreamContract(values: 1...10, termination: .required)
        let outcome = await runAsyncTest(engine) {
            DiagnosedEffect<Action>.stream("countdown", contract: countdown) { emitter in
                DispatchQueue.global().async {
                    for seconds in (1...3).reversed() {
                        DispatchQueue.main.async { emitter(.tick(seconds)) }
                    }
                    DispatchQueue.main.async {
                        emitter.send(.done)
                        emitter.finish()
                    }
                }
            }.run(expecting: .mainQueue, engine: engine) { received.append($0) }
            await eventually { received.count == 4 }
        }
        #expect(outcome.findings.isEmpty)
        #expect(received.all == [.tick(3), .tick(2), .tick(1), .done])
        await eventually { engine.ledger.liveCount(of: .callback) == 0 }
    }

    @Test func anActionAfterTheEndAndASecondEndBreakTheGrammar() throws {
        let engine = makeEngine()
        let received = Recorder<Action>()
        let outcome = runTest(engine) {
            DiagnosedEffect<Action>.stream("progress") { emitter in
                emitter.send(.tick(1))
                emitter.finish()
                emitter.send(.tick(2))
                emitter.finish()
            }.run(engine: engine) { received.append($0) }
        }
        #expect(outcome.findings.map(\.kind) == [.valueAfterTermination, .duplicateTermination])
        for finding in outcome.findings {
            expectEvidence(engine, finding, kind: finding.kind, label: "progress", test: outcome.test)
            #expect(finding.resourceKind == .callback)
        }
        #expect(received.all == [.tick(1), .tick(2)], "violations are reported, not hidden")
    }

    @Test func moreActionsThanTheContractAllowsIsAContractViolation() throws {
        let engine = makeEngine()
        let outcome = runTest(engine) {
            DiagnosedEffect<Action>.stream("single tick", contract: StreamContract(values: 0...1)) { emitter in
                emitter.send(.tick(1))
                emitter.send(.tick(2))
                emitter.finish()
            }.run(engine: engine) { _ in }
        }
        let finding = try onlyFinding(outcome, .contractViolation)
        expectEvidence(engine, finding, kind: .contractViolation, label: "single tick", test: outcome.test)
        #expect(finding.details["rule"] == "values" && finding.details["actual"] == "2")
    }

    @Test func aFailureTheContractForbidsIsAContractViolation() throws {
        let engine = makeEngine()
        let outcome = runTest(engine) {
            DiagnosedEffect<Action>.stream("clock", contract: StreamContract(allowsFailure: false)) { emitter in
                emitter.fail(Boom())
            }.run(engine: engine) { _ in }
        }
        let finding = try onlyFinding(outcome, .contractViolation)
        expectEvidence(engine, finding, kind: .contractViolation, label: "clock", test: outcome.test)
        #expect(finding.details["rule"] == "failure" && finding.details["actual"] == "boom")
    }

    @Test func actionsOffTheExpectedQueueAreWrongThread() throws {
        let engine = makeEngine()
        let done = DispatchSemaphore(value: 0)
        let outcome = runTest(engine) {
            DiagnosedEffect<Action>.stream("downloads") { emitter in
                DispatchQueue.global().async {
                    emitter.send(.tick(50))  // the bug: progress sent from the download queue
                    emitter.finish()
                    done.signal()
                }
            }.run(expecting: .mainQueue, engine: engine) { _ in }
            #expect(done.wait(timeout: .now() + 5) == .success)
        }
        #expect(outcome.findings.map(\.kind) == [.wrongThread, .wrongThread], "the value and the completion")
        let finding = try #require(outcome.findings.first)
        expectEvidence(engine, finding, kind: .wrongThread, label: "downloads", test: outcome.test)
        #expect(finding.message == "'downloads' delivered a value off the main queue")
    }

    @Test func aLongLivedEffectStillRunningAtTheCheckpointIsReported() throws {
        let engine = makeEngine()
        let subscribers = Recorder<EffectEmitter<Action>>()
        var run: EffectRun?
        let outcome = runTest(engine) {
            run = DiagnosedEffect<Action>.stream("location updates") { emitter in
                subscribers.append(emitter)
                emitter.send(.tick(1))
            }.run(engine: engine) { _ in }
        }
        let finding = try onlyFinding(outcome, .callbackNeverCalled)
        expectEvidence(engine, finding, kind: .callbackNeverCalled, label: "location updates", test: outcome.test)
        run?.cancel()
        subscribers.removeAll()
        #expect(engine.ledger.liveCount(of: .callback) == 0)
        #expect(engine.findings().count == 1, "releasing the cancelled emitter adds nothing")
    }

    @Test func aCancelledLongLivedEffectDropsLaterActions() {
        let engine = makeEngine()
        let received = Recorder<Action>()
        let subscribers = Recorder<EffectEmitter<Action>>()
        let outcome = runTest(engine) {
            let run = DiagnosedEffect<Action>.stream("location updates") { emitter in
                subscribers.append(emitter)
            }.run(engine: engine) { received.append($0) }
            run.cancel()
            for emitter in subscribers.all { emitter.send(.tick(1)) }  // in flight while cancelling
            subscribers.removeAll()
        }
        #expect(outcome.failures.isEmpty)
        #expect(outcome.findings.map(\.kind) == [.valueAfterCancel], "legal in flight: information only")
        #expect(outcome.findings.first?.severity == .info)
        #expect(received.all.isEmpty)
        #expect(engine.ledger.liveCount(of: .callback) == 0)
    }

    @Test func anEmitterReleasedUnfinishedIsReportedOnce() throws {
        let engine = makeEngine(settle: .seconds(30))
        let outcome = runTest(engine) {
            DiagnosedEffect<Action>.stream("import photos") { emitter in
                emitter.send(.tick(1))
                // the bug: the importer's completion handler was never wired to finish()
            }.run(engine: engine) { _ in }
        }
        let finding = try onlyFinding(outcome, .callbackNeverCalled)
        expectEvidence(engine, finding, kind: .callbackNeverCalled, label: "import photos", test: outcome.test)
        #expect(finding.details["reason"] == "released")
        #expect(
            finding.message
                == "effect 'import photos' was released without finishing: it sent 1 action(s) and can never finish now"
        )
        #expect(outcome.findings.count == 1)
        // Far below the 30 s limit: nothing was waited for (a loaded machine still needs slack).
        #expect(outcome.settleDuration < .seconds(10))
    }
}
