import Dispatch
import Foundation
@_spi(Integration) import ReactiveDiagnostics
import Synchronization
import Testing
import _ReactiveDiagnosticsSupport

/// Many threads at once subscribing, delivering, completing and cancelling: correct code gives
/// no finding and every count returns to zero; broken code gives exactly the violations made.
///
/// Bounded in time (`REACTIVE_DIAGNOSTICS_STRESS_SECONDS`, default 3 s per test) so CI stays fast;
/// run it longer by hand with a larger value.
@Suite("Stress", .serialized)
struct StressTests {
    static var seconds: Double {
        Double(ProcessInfo.processInfo.environment["REACTIVE_DIAGNOSTICS_STRESS_SECONDS"] ?? "") ?? 3
    }

    /// Runs `body(thread, iteration)` on `threads` threads until the time is up; returns iterations.
    func churn(threads: Int, _ body: @escaping @Sendable (Int, Int) -> Void) async -> Int {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(Self.seconds * 1e9)
        let total = Atomic<Int>(0)
        await onThreads(threads) { thread in
            var iteration = 0
            while DispatchTime.now().uptimeNanoseconds < deadline {
                body(thread, iteration)
                iteration += 1
            }
            total.wrappingAdd(iteration, ordering: .relaxed)
        }
        return total.load(ordering: .relaxed)
    }

    @Test func correctStreamsAndSchedulersUnderLoadProduceNothing() async {
        let engine = makeEngine()
        let label = DiagnosticLabel("stress")
        let probe = engine.makeSchedulerProbe(label: "stress-queue", longActionThreshold: .seconds(30))
        let queue = DispatchQueue(label: "stress", attributes: .concurrent)
        let scheduled = DispatchGroup()
        let iterations = await churn(threads: 6) { thread, iteration in
            let monitor = engine.makeStreamMonitor(label: label, contract: StreamContract(values: 0...8))
            monitor.receivedSubscription()
            monitor.requested(.max(4))
            for value in 0..<(iteration % 5) {
                let delivery = monitor.willDeliverValue()
                monitor.didDeliverValue(delivery, additionalDemand: value == 3 ? .max(1) : .none)
            }
            switch (thread + iteration) % 3 {
            case 0: monitor.didTerminate(monitor.willTerminate(failure: nil))
            case 1: monitor.didTerminate(monitor.willTerminate(failure: "expected"))
            default: monitor.cancelled()
            }
            if iteration % 8 == 0 {
                let action = probe.willSchedule()
                if iteration % 16 == 0 {
                    probe.didCancel(action)
                } else {
                    queue.async(group: scheduled) { probe.didRun(action, probe.willRun(action)) }
                }
            }
        }
        await withCheckedContinuation { continuation in scheduled.notify(queue: .global()) { continuation.resume() } }
        #expect(iterations > 1_000, "the load really ran (\(iterations) subscriptions)")
        #expect(engine.findings().isEmpty, "\(engine.findings().prefix(3).map(\.message))")
        #expect(engine.ledger.liveCount == 0)
        #expect(engine.ledger.registeredCount(of: .subscription) == iterations)
        let summary = probe.summary()
        #expect(summary.pending == 0 && summary.executed + summary.cancelled == summary.scheduled)
        FileHandle.standardError.write(
            Data(
                "stress: \(iterations) subscriptions in \(Self.seconds) s on 6 threads, peak \(engine.ledger.peakCount(of: .subscription)) alive\n"
                    .utf8))
    }

    @Test func everyViolationMadeFromManyThreadsIsReported() async {
        let engine = makeEngine { $0.capturesEventStacks = false }
        let label = DiagnosticLabel("broken")
        let made = LockedValue([FindingKind: Int]())
        let iterations = await churn(threads: 6) { thread, iteration in
            let monitor = engine.makeStreamMonitor(label: label)
            var local: [FindingKind: Int] = [:]
            switch (thread * 7 + iteration) % 4 {
            case 0:  // a value after completion, then a second completion
                monitor.receivedSubscription()
                monitor.requested(.unlimited)
                monitor.didTerminate(monitor.willTerminate(failure: nil))
                monitor.didDeliverValue(monitor.willDeliverValue())
                monitor.didTerminate(monitor.willTerminate(failure: "again"))
                local[.valueAfterTermination, default: 0] += 1
                local[.duplicateTermination, default: 0] += 1
            case 1:  // more than requested
                monitor.receivedSubscription()
                monitor.requested(.max(1))
                monitor.didDeliverValue(monitor.willDeliverValue())
                monitor.didDeliverValue(monitor.willDeliverValue())
                monitor.cancelled()
                local[.demandExceeded, default: 0] += 1
            case 2:  // a value before the subscription, and a second subscription
                monitor.didDeliverValue(monitor.willDeliverValue())
                monitor.receivedSubscription()
                monitor.receivedSubscription()
                monitor.cancelled()
                local[.eventBeforeSubscription, default: 0] += 1
                local[.duplicateSubscription, default: 0] += 1
            default:  // a request of zero
                monitor.receivedSubscription()
                monitor.requested(.max(0))
                monitor.cancelled()
                local[.invalidDemand, default: 0] += 1
            }
            made.withLock { made in
                for (kind, count) in local { made[kind, default: 0] += count }
            }
        }
        var reported: [FindingKind: Int] = [:]
        for finding in engine.findings() {
            reported[finding.kind, default: 0] += 1
        }
        #expect(iterations > 1_000)
        let madeByKind = made.withLock { $0 }
        let total = madeByKind.values.reduce(0, +)
        if engine.droppedFindingCount == 0 {
            #expect(reported == madeByKind, "every violation made is reported exactly once")
        } else {
            // Past the in-memory limit, findings are counted, not kept: none is lost silently.
            #expect(engine.findingCount == engine.configuration.maximumFindings)
        }
        #expect(engine.findingCount + engine.droppedFindingCount == total, "\(total) made")
        #expect(engine.ledger.liveCount == 0)
        FileHandle.standardError.write(
            Data(
                "stress: \(total) violations made from 6 threads: \(engine.findingCount) kept, \(engine.droppedFindingCount) counted past the limit\n"
                    .utf8))
    }

    @Test func concurrentDeliveriesToOneSubscriberAreAllCaught() async {
        // Every delivery that finds another one in progress is reported, exactly once, and
        // nothing else: the monitor counts the collisions it saw.
        let engine = makeEngine { $0.capturesEventStacks = false }
        let monitor = engine.makeStreamMonitor(label: DiagnosticLabel("shared"))
        monitor.receivedSubscription()
        monitor.requested(.unlimited)
        let deliveries = await churn(threads: 4) { _, _ in
            let delivery = monitor.willDeliverValue()
            for _ in 0..<50 { _ = DispatchTime.now() }  // time "inside" the downstream
            monitor.didDeliverValue(delivery)
        }
        let findings = engine.findings()
        #expect(findings.allSatisfy { $0.kind == .concurrentDelivery })
        #expect(!findings.isEmpty, "4 threads delivering at once for \(Self.seconds) s must collide")
        // The owner of a delivery counts with a plain load and store (exclusive in correct
        // code); only a colliding delivery, which is itself reported, can make it lose one.
        #expect(monitor.valuesDelivered <= deliveries && monitor.valuesDelivered >= deliveries - findings.count)
        #expect(findings.count < deliveries)
        monitor.cancelled()
    }
}
