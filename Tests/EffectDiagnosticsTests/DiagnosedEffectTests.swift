import Dispatch
import EffectDiagnostics
import Foundation
@_spi(Integration) @_spi(Testing) import ReactiveDiagnostics
import Testing

/// One-shot callback effects: exactly one call back, on the expected thread.
@Suite("DiagnosedEffect: one-shot effects")
struct DiagnosedEffectTests {
    enum Action: Sendable, Equatable {
        case saved(Int)
        case loaded(String)
    }

    /// The bug: a save that reports success, then "retries" and reports again.
    static func retryAfterTimeout(_ send: @Sendable (Action) -> Void) {
        send(.saved(2))
    }

    @Test func anEffectCalledBackTwiceIsReportedAtTheSecondCall() throws {
        let engine = makeEngine()
        let received = Recorder<Action>()
        let done = DispatchSemaphore(value: 0)
        let outcome = runTest(engine) {
            DiagnosedEffect<Action>("save draft") { send in
                DispatchQueue.global().async {
                    send(.saved(1))
                    Self.retryAfterTimeout(send)
                    done.signal()
                }
            }.run(engine: engine) { received.append($0) }
            #expect(done.wait(timeout: .now() + 5) == .success)
        }
        let finding = try onlyFinding(outcome, .callbackCalledTwice)
        expectEvidence(engine, finding, kind: .callbackCalledTwice, label: "save draft", test: outcome.test)
        expectStack(engine, finding.eventStack, contains: "retryAfterTimeout")
        #expect(finding.details["calls"] == "2")
        #expect(
            finding.message
                == "effect 'save draft' called back 2 times; a one-shot callback must be called exactly once")
        #expect(finding.thread?.isMainQueue == false)
        #expect(outcome.findings.count == 1, "the first call ended the effect: \(outcome.findings.map(\.kind))")
        #expect(received.all == [.saved(1), .saved(2)], "diagnostics forward what the effect sends")
    }

    @Test func anEffectStillWaitingAtTheCheckpointWasNeverCalledBack() throws {
        let engine = makeEngine()
        let unanswered = Recorder<@Sendable (Action) -> Void>()  // requests whose reply never comes
        let outcome = runTest(engine) {
            for _ in 0..<2 {
                DiagnosedEffect<Action>("fetch avatar") { send in unanswered.append(send) }
                    .run(engine: engine) { _ in }
            }
        }
        let finding = try onlyFinding(outcome, .callbackNeverCalled)
        expectEvidence(engine, finding, kind: .callbackNeverCalled, label: "fetch avatar", test: outcome.test)
        #expect(finding.details["count"] == "2", "two effects from one site are one finding")
        #expect(finding.details["reason"] == nil)
        #expect(finding.message == "2 effects 'fetch avatar' never called back by the end of the test")
        #expect(finding.resourceKind == .callback)
        #expect(outcome.findings.count == 1)
        // Answering after the test ends the resources without a second report.
        for send in unanswered.all { send(.loaded("late")) }
        #expect(engine.ledger.liveCount(of: .callback) == 0)
        #expect(engine.findings().count == 1)
    }

    @Test func anEffectThatDropsItsCallbackIsReportedWhenItIsReleased() throws {
        let engine = makeEngine(settle: .seconds(30))
        let cache: [String: String] = [:]
        let outcome = runTest(engine) {
            DiagnosedEffect<Action>("load cached") { send in
                guard let value = cache["profile"] else { return }  // the bug: no send on a miss
                send(.loaded(value))
            }.run(engine: engine) { _ in }
        }
        let finding = try onlyFinding(outcome, .callbackNeverCalled)
        expectEvidence(engine, finding, kind: .callbackNeverCalled, label: "load cached", test: outcome.test)
        #expect(finding.details["reason"] == "released")
        #expect(finding.message.hasPrefix("effect 'load cached' was released without calling back"))
        #expect(finding.eventStack.isCaptured, "the release's stack is the event")
        #expect(outcome.findings.count == 1, "reported at release, not again at the checkpoint")
        #expect(outcome.settleDuration < .seconds(10), "a released callback is not waited for (the limit is 30 s)")
        #expect(engine.ledger.liveCount(of: .callback) == 0)
    }

    @Test func aCallbackReleasedAfterItsCheckpointIsNotReportedTwice() throws {
        let engine = makeEngine()
        let holder = Recorder<@Sendable (Action) -> Void>()
        let outcome = runTest(engine) {
            DiagnosedEffect<Action>("slow upload") { send in holder.append(send) }.run(engine: engine) { _ in }
        }
        let finding = try onlyFinding(outcome, .callbackNeverCalled)
        expectEvidence(engine, finding, kind: .callbackNeverCalled, label: "slow upload", test: outcome.test)
        // The request is torn down after the test: its callback is released uncalled.
        holder.removeAll()
        #expect(engine.findings().map(\.kind) == [.callbackNeverCalled])
        #expect(engine.ledger.liveCount(of: .callback) == 0)
    }

    @Test func anEffectCallingBackOffTheMainQueueIsAWrongThread() throws {
        let engine = makeEngine()
        let done = DispatchSemaphore(value: 0)
        let appliedOnMain = Recorder<Bool>()
        let outcome = runTest(engine) {
            DiagnosedEffect<Action>("load settings") { send in
                DispatchQueue.global().async {
                    send(.loaded("dark mode"))  // the bug: no hop to the main queue
                    done.signal()
                }
            }.run(expecting: .mainQueue, engine: engine) { _ in appliedOnMain.append(MainQueue.isCurrent) }
            #expect(done.wait(timeout: .now() + 5) == .success)
        }
        let finding = try onlyFinding(outcome, .wrongThread)
        expectEvidence(engine, finding, kind: .wrongThread, label: "load settings", test: outcome.test)
        #expect(
            finding.message.hasPrefix(
                "effect 'load settings' called back on the wrong thread: expected the main queue, was thread "))
        #expect(finding.details["expected"] == "main queue")
        #expect(finding.thread?.isMainQueue == false)
        expectStack(engine, finding.eventStack, contains: "anEffectCallingBackOffTheMainQueueIsAWrongThread")
        #expect(outcome.findings.count == 1, "it did call back once: \(outcome.findings.map(\.kind))")
        #expect(appliedOnMain.all == [false])
    }

    @Test func anEffectThatHopsToTheMainQueueIsClean() async {
        let engine = makeEngine()
        let received = Recorder<Action>()
        let outcome = await runAsyncTest(engine) {
            DiagnosedEffect<Action>("load settings") { send in
                DispatchQueue.global().async {
                    let value = "dark mode"
                    DispatchQueue.main.async { send(.loaded(value)) }
                }
            }.run(expecting: .mainQueue, engine: engine) { received.append($0) }
            await eventually { received.count == 1 }
        }
        #expect(outcome.findings.isEmpty)
        #expect(received.all == [.loaded("dark mode")])
        #expect(engine.ledger.registeredCount(of: .callback) == 1 && engine.ledger.liveCount(of: .callback) == 0)
    }

    @Test func aCancelledEffectIsNotWaitedForAndItsLateActionIsDropped() {
        let engine = makeEngine()
        let received = Recorder<Action>()
        let pending = Recorder<@Sendable (Action) -> Void>()
        let outcome = runTest(engine) {
            let run = DiagnosedEffect<Action>("search") { send in pending.append(send) }
                .run(engine: engine) { received.append($0) }
            #expect(run.label == "search")
            run.cancel()
            run.cancel()
            for send in pending.all { send(.loaded("stale results")) }
        }
        #expect(outcome.findings.isEmpty)
        #expect(received.all.isEmpty, "a cancelled effect's action never reaches the store")
        #expect(engine.ledger.liveCount(of: .callback) == 0)
    }

    @Test func aDisabledEngineTracksNothingAndForwardsEverything() {
        let engine = makeEngine()
        engine.updateConfiguration { $0.isEnabled = false }
        let received = Recorder<Action>()
        let pending = Recorder<@Sendable (Action) -> Void>()
        let outcome = runTest(engine) {
            DiagnosedEffect<Action>("save") { send in
                send(.saved(1))
                send(.saved(2))
            }.run(expecting: .offMainQueue, engine: engine) { received.append($0) }
            DiagnosedEffect<Action>("fetch") { send in pending.append(send) }
                .run(engine: engine) { received.append($0) }
                .cancel()
            for send in pending.all { send(.loaded("stale")) }
            let stream = DiagnosedEffect<Action>.stream("progress") { emitter in
                emitter.send(.saved(3))
                emitter.finish()
                emitter.finish()
            }.run(engine: engine) { received.append($0) }
            stream.cancel()
        }
        #expect(outcome.findings.isEmpty)
        #expect(received.all == [.saved(1), .saved(2), .saved(3)], "cancellation still drops late actions")
        #expect(engine.ledger.registeredCount(of: .callback) == 0)
    }
}
