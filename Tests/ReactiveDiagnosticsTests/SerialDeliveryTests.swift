import Dispatch
import Foundation
@_spi(Integration) import ReactiveDiagnostics
import ReactiveDiagnosticsTestSupport
import Testing
import _ReactiveDiagnosticsSupport

/// Serial delivery: both sides of a concurrent delivery, whichever thread is faster, and the
/// thread-hop probe that meets a concurrent emitter without ever accusing a serial one.
@Suite("Serial delivery")
struct SerialDeliveryTests {
    let label = DiagnosticLabel("feed")

    /// A monitor of an unlimited stream, made in the test `name`.
    func makeMonitor(_ engine: DiagnosticsEngine, _ name: String = #function) -> (StreamMonitor, TestIdentity) {
        let test = TestIdentity(name: "SerialDeliveryTests.\(name)")
        let monitor = TestIdentity.$current.withValue(test) { engine.makeStreamMonitor(label: label) }
        monitor.receivedSubscription()
        monitor.requested(.unlimited)
        return (monitor, test)
    }

    /// Blocks the colliding thread right after it recorded its finding, so that the owner's
    /// delivery ends first (the order the old hand-over got wrong).
    final class HoldAfterRecording: FindingObserver {
        let recorded = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        func didRecord(_ finding: Finding) {
            recorded.signal()
            _ = proceed.wait(timeout: .now() + 10)
        }
    }

    @Test func theOwnerIsNamedAtOnceAndAddsItsStackWhenItsDeliveryEnds() throws {
        let engine = makeEngine()
        let (monitor, test) = makeMonitor(engine)
        let ownerInside = DispatchSemaphore(value: 0)
        let collided = DispatchSemaphore(value: 0)
        let owner = LockedValue<UInt64>(0)
        let ownerDone = onNewThread {
            owner.withLock { $0 = ThreadInfo.current.id }
            let delivery = monitor.willDeliverValue()
            ownerInside.signal()
            _ = collided.wait(timeout: .now() + 10)  // still delivering while the other thread delivers
            monitor.didDeliverValue(delivery)
        }
        #expect(ownerInside.wait(timeout: .now() + 10) == .success)
        let collider = onNewThread { monitor.didDeliverValue(monitor.willDeliverValue()) }
        #expect(collider.wait(timeout: .now() + 10) == .success)

        // Before the owner's delivery ends, its thread is already named (from the owner word).
        let early = try #require(engine.findings().first)
        #expect(early.kind == .concurrentDelivery && early.test == test)
        #expect(early.otherThread?.id == owner.withLock { $0 })
        #expect(early.otherThread?.id != early.thread?.id)
        #expect(!early.relatedStack.isCaptured)

        collided.signal()
        #expect(ownerDone.wait(timeout: .now() + 10) == .success)
        let finding = engine.latest(early)
        #expect(finding.relatedStack.isCaptured, "the owner added its stack when its delivery ended")
        #expect(finding.otherThread?.id == owner.withLock { $0 })
        expectStack(engine, finding.relatedStack, contains: "theOwnerIsNamedAtOnceAndAddsItsStackWhenItsDeliveryEnds")
        #expect(engine.findings().count == 1)
    }

    @Test func anOwnerThatEndsBeforeTheFindingIsRecordedStillGivesItsSide() throws {
        let engine = makeEngine()
        let hold = HoldAfterRecording()
        engine.addFindingObserver(hold)
        defer { engine.removeFindingObserver(hold) }
        let (monitor, _) = makeMonitor(engine)
        let ownerInside = DispatchSemaphore(value: 0)
        let owner = LockedValue<UInt64>(0)
        let colliderThread = LockedValue<UInt64>(0)
        let ownerDone = onNewThread {
            owner.withLock { $0 = ThreadInfo.current.id }
            let delivery = monitor.willDeliverValue()
            ownerInside.signal()
            _ = hold.recorded.wait(timeout: .now() + 10)  // the other thread collided and recorded
            monitor.didDeliverValue(delivery)  // ends first: parks its side
        }
        #expect(ownerInside.wait(timeout: .now() + 10) == .success)
        let collider = onNewThread {
            colliderThread.withLock { $0 = ThreadInfo.current.id }
            monitor.didDeliverValue(monitor.willDeliverValue())
        }
        #expect(ownerDone.wait(timeout: .now() + 10) == .success)
        // The owner is gone; then the colliding thread finishes: it attaches the parked side itself.
        hold.proceed.signal()
        #expect(collider.wait(timeout: .now() + 10) == .success)
        let finding = engine.latest(try #require(engine.findings().first))
        #expect(finding.thread?.id == colliderThread.withLock { $0 })
        #expect(finding.otherThread?.id == owner.withLock { $0 }, "never the colliding thread named twice")
        #expect(finding.relatedStack.isCaptured)
        expectStack(
            engine, finding.relatedStack, contains: "anOwnerThatEndsBeforeTheFindingIsRecordedStillGivesItsSide")
        // The colliding thread's own later deliveries add nothing of theirs.
        monitor.didDeliverValue(monitor.willDeliverValue())
        #expect(engine.latest(finding).otherThread?.id == owner.withLock { $0 })
    }

    // MARK: Thread-hop probe

    @Test func aDeliveryThatChangedThreadsWaitsForAConcurrentEmitter() throws {
        // A long window makes the meeting certain; it ends as soon as the collision is seen.
        let engine = makeEngine {
            $0.threadHopProbe = ThreadHopProbe(
                firstWindow: .seconds(30), maximumWindow: .seconds(30), budgetPerStream: .seconds(60),
                budget: .seconds(60))
        }
        let (monitor, _) = makeMonitor(engine)
        monitor.didDeliverValue(monitor.willDeliverValue())  // this thread delivered last
        let returning = DispatchSemaphore(value: 0)
        let hopped = onNewThread {
            let delivery = monitor.willDeliverValue()
            returning.signal()
            monitor.didDeliverValue(delivery)  // another thread than the last: probes
        }
        #expect(returning.wait(timeout: .now() + 10) == .success)
        Thread.sleep(forTimeInterval: 0.05)  // the hopping delivery's downstream has returned
        let other = onNewThread { monitor.didDeliverValue(monitor.willDeliverValue()) }
        #expect(other.wait(timeout: .now() + 10) == .success)
        #expect(hopped.wait(timeout: .now() + 10) == .success)
        let finding = engine.latest(try #require(engine.findings().first))
        #expect(finding.kind == .concurrentDelivery && finding.relatedStack.isCaptured)
        #expect(finding.otherThread?.id != finding.thread?.id)
        let usage = engine.threadHopProbeUsage
        #expect(usage.probes >= 1 && usage.waited < .seconds(20), "the window ended at the collision: \(usage)")
    }

    @Test func aSerialSourceThatHopsThreadsIsNeverReportedAndWaitsBoundedly() {
        let probes = ThreadHopProbe(
            probesPerStream: 4, firstWindow: .microseconds(100), maximumWindow: .microseconds(400),
            thereafterEvery: 100,
            budgetPerStream: .milliseconds(2))
        let engine = makeEngine { $0.threadHopProbe = probes }
        let (monitor, _) = makeMonitor(engine)
        let lock = NSLock()
        let turn = LockedValue(0)
        // Two threads take turns, strictly serial (the lock spans each whole delivery): every
        // delivery changes threads.
        onThreads(2) { index in
            var delivered = 0
            while delivered < 500 {
                let mine = turn.withLock { $0 % 2 == index }
                guard mine else {
                    sched_yield()
                    continue
                }
                lock.withLock { monitor.didDeliverValue(monitor.willDeliverValue()) }
                turn.withLock { $0 += 1 }
                delivered += 1
            }
        }
        #expect(engine.findings().isEmpty)
        #expect(monitor.valuesDelivered == 1000)
        let usage = engine.threadHopProbeUsage
        // Four first probes (1.1 ms), then one change in 100 with the longest window, until the
        // stream's 2 ms are spent: two or three more.
        #expect(usage.probes >= 5 && usage.probes <= 4 + 3, "\(usage)")
        #expect(usage.waited <= .milliseconds(2) + .microseconds(400), "\(usage)")
        monitor.cancelled()
    }

    /// The streams subscribed at one site (allocation stack and label) share its first probes:
    /// a chain made again in every test is probed on its first hops, not on each instance's.
    /// Another site has first probes of its own, and `probesPerSite: 0` gives each stream its own.
    @Test func theStreamsOfOneSiteShareItsFirstProbes() {
        func probes(perSite: Int, labels: [String]) -> Int {
            let engine = makeEngine {
                $0.threadHopProbe = ThreadHopProbe(
                    probesPerStream: 4, firstWindow: .microseconds(20), maximumWindow: .microseconds(20),
                    thereafterEvery: 0, probesPerSite: perSite)
            }
            for label in labels {
                let monitor = engine.makeStreamMonitor(label: DiagnosticLabel(label))
                monitor.receivedSubscription()
                monitor.requested(.unlimited)
                for _ in 0..<4 {  // the first delivery sets the thread; three changes follow
                    onNewThread { monitor.didDeliverValue(monitor.willDeliverValue()) }.wait()
                }
                monitor.cancelled()
                #expect(engine.findings().isEmpty)
            }
            return engine.threadHopProbeUsage.probes
        }
        let sameSite = Array(repeating: "screen", count: 5)
        #expect(probes(perSite: 4, labels: sameSite) == 4, "five streams of one site: its four first probes")
        #expect(probes(perSite: 4, labels: sameSite + ["other"]) == 4 + 3, "another site probes on its own")
        #expect(probes(perSite: 0, labels: sameSite) == 5 * 3, "each stream probes its own thread changes")
    }

    @Test func probingStopsWhenTheEnginesBudgetIsSpent() {
        let engine = makeEngine {
            $0.threadHopProbe = ThreadHopProbe(
                firstWindow: .milliseconds(1), maximumWindow: .milliseconds(1), budget: .milliseconds(3))
        }
        for _ in 0..<3 {
            let (monitor, _) = makeMonitor(engine)
            for _ in 0..<4 {
                onNewThread { monitor.didDeliverValue(monitor.willDeliverValue()) }.wait()
            }
            monitor.cancelled()
        }
        let usage = engine.threadHopProbeUsage
        #expect(usage.waited <= .milliseconds(3) && usage.remaining < .milliseconds(1), "\(usage)")
        #expect(engine.findings().isEmpty)
    }

    @Test func probesCanBeTurnedOffFromTheEnvironment() throws {
        let configuration = try Configuration(environment: [
            "REACTIVE_DIAGNOSTICS_HOP_PROBES": "0", "REACTIVE_DIAGNOSTICS_HOP_PROBE_BUDGET_MS": "20",
        ])
        #expect(configuration.threadHopProbe.probesPerStream == 0 && configuration.threadHopProbe.thereafterEvery == 0)
        #expect(configuration.threadHopProbe.budget == .milliseconds(20))
        #expect(throws: ConfigurationError.self) {
            try Configuration(environment: ["REACTIVE_DIAGNOSTICS_HOP_PROBES": "many"])
        }
    }
}

/// Starts `body` on a new thread; the semaphore is signalled when it returns.
@discardableResult
private func onNewThread(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
    let done = DispatchSemaphore(value: 0)
    Thread {
        body()
        done.signal()
    }.start()
    return done
}
