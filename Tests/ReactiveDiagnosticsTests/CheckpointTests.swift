import Dispatch
import Foundation
@_spi(Integration) import ReactiveDiagnostics
import Testing
import _ReactiveDiagnosticsSupport

/// Tests begin and end: settling, leak findings, attribution, allowances, premature cancels.
@Suite("Test checkpoints")
struct CheckpointTests {
    /// Runs `body` as a parallel-runner test (task-local identity), then finishes it.
    func runTest(
        _ engine: DiagnosticsEngine, _ name: String = #function, options: TestOptions = TestOptions(),
        _ body: () -> Void
    ) -> TestOutcome {
        let checkpoint = engine.beginTest(named: "CheckpointTests.\(name)", serial: false)
        TestIdentity.$current.withValue(checkpoint.test) { body() }
        return engine.finishTest(checkpoint, options: options)
    }

    @Test func aLiveSubscriptionAtTheEndIsALeakOfThatTest() throws {
        let engine = makeEngine()
        var monitors: [StreamMonitor] = []
        let outcome = runTest(engine) {
            for _ in 0..<2 {
                let monitor = engine.makeStreamMonitor(label: DiagnosticLabel("refresh"))
                monitor.receivedSubscription()
                monitors.append(monitor)
            }
        }
        let leak = try #require(outcome.findings.first)
        #expect(outcome.findings.count == 1, "two leaks from one site are one finding")
        #expect(leak.kind == .leakedSubscription && leak.label == "refresh")
        #expect(leak.details["count"] == "2" && leak.message.hasPrefix("2 subscriptions 'refresh'"))
        #expect(
            leak.test == outcome.test
                && leak.test.name == "CheckpointTests.aLiveSubscriptionAtTheEndIsALeakOfThatTest()")
        #expect(leak.failsTest)
        expectStack(engine, leak.allocationStack, contains: "aLiveSubscriptionAtTheEndIsALeakOfThatTest")
        #expect(engine.describe(leak).contains("allocated at:"))
        withExtendedLifetime(monitors) {}
    }

    @Test func eachLeakKindHasItsFinding() {
        let engine = makeEngine()
        let probe = engine.makeSchedulerProbe(label: "timers")
        var kept: [ResourceToken] = []
        var actions: [ScheduledAction] = []
        let outcome = runTest(engine) {
            actions.append(probe.willSchedule())
            actions.append(probe.willSchedule(repeating: true))
            kept.append(engine.track(.callback, label: "load"))
            kept.append(engine.track(.observer, label: "keyboard"))
            kept.append(engine.track(.named("socket"), label: "feed"))
        }
        #expect(
            Set(outcome.findings.map(\.kind)) == [
                .pendingAction, .uncancelledTimer, .callbackNeverCalled, .observerNotRemoved, .leakedResource,
            ])
        for finding in outcome.findings {
            expectStack(engine, finding.allocationStack, contains: "eachLeakKindHasItsFinding")
        }
        withExtendedLifetime((kept, actions)) {}
    }

    @Test func resourcesThatEndWithinTheSettleTimeAreNotLeaks() throws {
        let engine = makeEngine { $0.settleTime = .seconds(30) }
        let clock = ContinuousClock()
        let cancelledAt = LockedValue<ContinuousClock.Instant?>(nil)
        let outcome = runTest(engine) {
            let monitor = engine.makeStreamMonitor(label: DiagnosticLabel("slow"))
            monitor.receivedSubscription()
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) {
                monitor.cancelled()
                cancelledAt.withLock { $0 = clock.now }
            }
        }
        let finishedAt = clock.now
        #expect(outcome.findings.isEmpty)
        // Waited for the cancel, and ended soon after it rather than at the 30 s limit (how long
        // the settle took depends on when the test's body ended: not asserted from below, so
        // a loaded machine cannot fail it).
        let cancelled = try #require(
            cancelledAt.withLock { $0 }, "the test finished before its subscription was cancelled")
        #expect(cancelled <= finishedAt)
        #expect(outcome.settleDuration < .seconds(20))
    }

    @Test func mainQueueWorkGetsToRunBeforeLeaksAreCounted() {
        let engine = makeEngine { $0.settleTime = .seconds(30) }
        let outcome = runTest(engine) {
            let monitor = engine.makeStreamMonitor(label: DiagnosticLabel("ui"))
            monitor.receivedSubscription()
            DispatchQueue.main.async { monitor.cancelled() }
        }
        #expect(outcome.findings.isEmpty)
    }

    @Test func findingsAreAttributedToTheRightTestWhenTestsOverlap() {
        let engine = makeEngine()
        let first = engine.beginTest(named: "CheckpointTests.first", serial: false)
        let second = engine.beginTest(named: "CheckpointTests.second", serial: false)
        var monitors: [StreamMonitor] = []
        TestIdentity.$current.withValue(first.test) {
            let monitor = engine.makeStreamMonitor(label: DiagnosticLabel("a"))
            monitor.receivedSubscription()
            monitor.receivedSubscription()
            monitors.append(monitor)
        }
        TestIdentity.$current.withValue(second.test) {
            let monitor = engine.makeStreamMonitor(label: DiagnosticLabel("b"))
            monitor.receivedSubscription()
            monitor.cancelled()
        }
        let secondOutcome = engine.finishTest(second)
        let firstOutcome = engine.finishTest(first)
        #expect(secondOutcome.findings.isEmpty)
        #expect(firstOutcome.findings.map(\.kind) == [.duplicateSubscription, .leakedSubscription])
        withExtendedLifetime(monitors) {}
    }

    @Test func serialTestsAttributeTheWorkOfTheirEngineOnly() {
        let engine = makeEngine()
        let other = makeEngine()
        let checkpoint = engine.beginTest(named: "CheckpointTests.serial", serial: true)
        #expect(engine.serialTest == checkpoint.test && engine.currentTest() == checkpoint.test)
        #expect(other.serialTest == .none && other.currentTest() == .none, "another engine's serial test is not ours")
        let token = engine.track(.subscription, label: "serial")
        let unrelated = other.track(.subscription, label: "other engine")
        let outcome = engine.finishTest(checkpoint)
        #expect(engine.serialTest == .none)
        #expect(outcome.findings.map(\.kind) == [.leakedSubscription])
        #expect(other.ledger.liveResources().map(\.test) == [.none])
        engine.untrack(token)
        other.untrack(unrelated)
    }

    @Test func aFinishedSerialTestDoesNotClearItsSuccessor() {
        let engine = makeEngine()
        let first = engine.beginTest(named: "CheckpointTests.first-serial", serial: true)
        let second = engine.beginTest(named: "CheckpointTests.second-serial", serial: true)
        _ = engine.finishTest(first)
        #expect(engine.serialTest == second.test)
        _ = engine.finishTest(second)
        #expect(engine.serialTest == .none)
    }

    @Test func aContextualTestWinsOverTheSerialOne() {
        let engine = makeEngine()
        let serial = engine.beginTest(named: "CheckpointTests.serial-outer", serial: true)
        let task = TestIdentity(name: "CheckpointTests.task-inner")
        TestIdentity.$current.withValue(task) {
            #expect(engine.currentTest() == task)
        }
        #expect(engine.currentTest() == serial.test)
        _ = engine.finishTest(serial)
    }

    @Test func allowedKindsAreSuppressedNotHidden() throws {
        let engine = makeEngine()
        let outcome = runTest(engine, options: TestOptions(allowedKinds: [.duplicateSubscription])) {
            let monitor = engine.makeStreamMonitor(label: DiagnosticLabel("allowed"))
            monitor.receivedSubscription()
            monitor.receivedSubscription()
            monitor.cancelled()
        }
        let finding = try #require(outcome.findings.first)
        #expect(finding.suppressedBy == "test allows duplicateSubscription")
        #expect(!finding.failsTest && outcome.failures.isEmpty)
        #expect(engine.makeReport().findings.first?.suppressedBy == "test allows duplicateSubscription")
    }

    @Test func theTestLogFeedsTheReport() {
        let engine = makeEngine()
        _ = runTest(engine) {
            let monitor = engine.makeStreamMonitor(label: DiagnosticLabel("x"))
            monitor.receivedSubscription()
            monitor.receivedSubscription()
            monitor.cancelled()
        }
        _ = runTest(engine, "clean()") {}
        let tests = engine.makeReport().run.tests
        #expect(tests.map(\.failed) == [true, false])
        #expect(tests.map(\.findings) == [1, 0])
    }

    // MARK: Premature cancellation

    /// Stands in for a framework cancellable that cancels its stream when released.
    final class ReleasedCancellable {
        let monitor: StreamMonitor
        init(_ monitor: StreamMonitor) { self.monitor = monitor }
        deinit { monitor.cancelled() }
    }

    @Test func releasingTheCancellableBeforeAnyValueIsPremature() throws {
        let engine = makeEngine()
        let outcome = runTest(engine) {
            let monitor = engine.makeStreamMonitor(
                label: DiagnosticLabel("image"),
                options: .init(prematureCancellationMarkers: ["ReleasedCancellable.deinit"]))
            monitor.receivedSubscription()
            _ = ReleasedCancellable(monitor)  // "forgot to store it"
        }
        let finding = try #require(outcome.findings.first)
        #expect(outcome.findings.count == 1)
        #expect(finding.kind == .prematureCancellation && finding.label == "image")
        expectStack(engine, finding.allocationStack, contains: "releasingTheCancellableBeforeAnyValueIsPremature")
        expectStack(engine, finding.eventStack, contains: "ReleasedCancellable.deinit")
    }

    /// Holds a cancellable for a stream it did not start, like a view model holding a request.
    final class Owner {
        var cancellable: ReleasedCancellable?
    }

    @Test func releasingAnOwnerOfTheCancellableIsOnPurpose() {
        // The cancellable goes away because its owner does (a screen closed mid-request): the
        // release happens in the owner's deinit, not where the stream was subscribed.
        let engine = makeEngine()
        let outcome = runTest(engine) {
            let monitor = engine.makeStreamMonitor(
                label: DiagnosticLabel("request"),
                options: .init(prematureCancellationMarkers: ["ReleasedCancellable.deinit"]))
            monitor.receivedSubscription()
            var owner: Owner? = Owner()
            owner?.cancellable = ReleasedCancellable(monitor)
            owner = nil
        }
        #expect(outcome.findings.isEmpty, "\(outcome.findings.map(\.message))")
    }

    @Test func cancellingOnPurposeOrAfterAValueIsNotPremature() {
        let engine = makeEngine()
        let outcome = runTest(engine) {
            let options = StreamMonitor.Options(prematureCancellationMarkers: ["ReleasedCancellable.deinit"])
            let explicit = engine.makeStreamMonitor(label: DiagnosticLabel("explicit"), options: options)
            explicit.receivedSubscription()
            explicit.cancelled()
            let afterValue = engine.makeStreamMonitor(label: DiagnosticLabel("afterValue"), options: options)
            afterValue.receivedSubscription()
            afterValue.requested(.unlimited)
            afterValue.didDeliverValue(afterValue.willDeliverValue())
            _ = ReleasedCancellable(afterValue)
        }
        #expect(outcome.findings.isEmpty)
    }
}
