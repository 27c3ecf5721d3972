import Dispatch
import Foundation
@_spi(Integration) import ReactiveDiagnostics
import Testing

@Suite("Scheduler probes")
struct SchedulerProbeTests {
    /// Schedules `work` on `queue` through `probe`, the way an adapter does.
    func schedule(
        _ probe: SchedulerProbe, on queue: DispatchQueue, group: DispatchGroup,
        _ work: @escaping @Sendable () -> Void = {}
    ) {
        let action = probe.willSchedule()
        queue.async(group: group) {
            let run = probe.willRun(action)
            work()
            probe.didRun(action, run)
        }
    }

    @Test func countsLatencyAndThreads() {
        let engine = makeEngine()
        let probe = engine.makeSchedulerProbe(label: "io")
        let group = DispatchGroup()
        let queue = DispatchQueue(label: "probe-tests.io")
        for _ in 0..<50 { schedule(probe, on: queue, group: group) }
        group.wait()
        let summary = probe.summary()
        #expect(summary.scheduled == 50 && summary.executed == 50)
        #expect(summary.pending == 0 && summary.cancelled == 0)
        #expect(summary.latency.count == 50 && summary.duration.count == 50)
        #expect(
            summary.latency.maxNanos >= summary.latency.p50Nanos && summary.latency.p50Nanos >= summary.latency.minNanos
        )
        #expect(summary.threads.reduce(0) { $0 + $1.count } == 50)
        #expect(summary.threads.allSatisfy { !$0.isMainQueue })
        #expect(engine.findings().isEmpty)
        #expect(engine.ledger.liveCount(of: .scheduledAction) == 0)
        #expect(engine.schedulerSummaries().map(\.label) == ["io"])
    }

    @Test func actionOffTheExpectedThread() {
        let engine = makeEngine()
        let test = TestIdentity(name: "SchedulerProbeTests.actionOffTheExpectedThread")
        let probe = engine.makeSchedulerProbe(label: "ui", expectation: .mainQueue)
        let group = DispatchGroup()
        TestIdentity.$current.withValue(test) {
            schedule(probe, on: .global(), group: group)
        }
        group.wait()
        guard let finding = onlyFinding(engine, .wrongThread) else { return }
        #expect(finding.label == "ui" && finding.test == test)
        #expect(finding.resourceKind == .scheduledAction)
        expectStack(engine, finding.allocationStack, contains: "actionOffTheExpectedThread")
        #expect(probe.summary().threadViolations == 1)
        #expect(probe.summary().expectation == "main queue")
    }

    @Test func actionsOnTheExpectedThreadAreFine() {
        let engine = makeEngine()
        let probe = engine.makeSchedulerProbe(label: "background", expectation: .offMainQueue)
        let group = DispatchGroup()
        schedule(probe, on: .global(), group: group)
        group.wait()
        #expect(engine.findings().isEmpty)
    }

    @Test func longActionsBlockTheQueue() {
        let engine = makeEngine()
        let test = TestIdentity(name: "SchedulerProbeTests.longActionsBlockTheQueue")
        let probe = engine.makeSchedulerProbe(label: "db", longActionThreshold: .milliseconds(5))
        let group = DispatchGroup()
        TestIdentity.$current.withValue(test) {
            schedule(probe, on: .global(), group: group) { Thread.sleep(forTimeInterval: 0.03) }
        }
        group.wait()
        guard let finding = onlyFinding(engine, .longAction) else { return }
        #expect(finding.severity == .warning && finding.test == test)
        expectStack(engine, finding.allocationStack, contains: "longActionsBlockTheQueue")
        #expect(probe.summary().longActions == 1)
    }

    @Test func pendingAndRepeatingActionsAreLiveUntilTheyEnd() {
        let engine = makeEngine()
        let probe = engine.makeSchedulerProbe(label: "timers")
        let pending = probe.willSchedule()
        let timer = probe.willSchedule(repeating: true)
        #expect(engine.ledger.liveCount(of: .scheduledAction) == 1)
        #expect(engine.ledger.liveCount(of: .timer) == 1)
        #expect(probe.summary().pending == 1 && probe.summary().activeRepeating == 1)
        for _ in 0..<3 {
            let run = probe.willRun(timer)
            probe.didRun(timer, run)
        }
        #expect(engine.ledger.liveCount(of: .timer) == 1, "a repeating action stays live across runs")
        probe.didCancel(timer)
        probe.didCancel(pending)
        probe.didCancel(pending)
        let summary = probe.summary()
        #expect(summary.cancelled == 2 && summary.executed == 3 && summary.pending == 0)
        #expect(engine.ledger.liveCount == 0)
    }

    @Test func delayedActionsMeasureLatencyFromTheirDueTime() {
        let engine = makeEngine()
        let probe = engine.makeSchedulerProbe(label: "delayed")
        let action = probe.willSchedule()
        let scheduled = DispatchTime.now().uptimeNanoseconds
        let due = scheduled + 20_000_000
        action.expectRun(atUptimeNanoseconds: due)
        Thread.sleep(forTimeInterval: 0.025)
        let run = probe.willRun(action)
        let ran = DispatchTime.now().uptimeNanoseconds
        probe.didRun(action, run)
        // Bounds from the clock, not from how precisely the machine slept: at most the time from
        // the due time to the run, so 20 ms less than the time since scheduling.
        let latency = probe.summary().latency.maxNanos
        #expect(latency <= ran - due, "measured from the due time, not from scheduling")
        #expect(latency + 20_000_000 <= ran - scheduled)
    }

    @Test func aBusySchedulersLatencyAndDurationAreSampledItsLongRunsAndExtremesAreNot() {
        let engine = makeEngine { $0.capturesAllocationStacks = false }
        // A threshold no empty action reaches even when the thread is preempted under Thread
        // Sanitizer on a busy machine (2 ms did once: two long actions instead of one).
        let probe = engine.makeSchedulerProbe(label: "busy", longActionThreshold: .milliseconds(100))
        // The 300th action is not a sample (300 is not a multiple of 8): it runs long.
        for number in 1...300 {
            probe.willSchedule(running: { if number == 300 { usleep(150_000) } }).run()
        }
        let sampled = (257...300).filter { $0 % SchedulerProbe.latencySampling == 0 }.count
        let summary = probe.summary()
        #expect(summary.latency.count == SchedulerProbe.latencyEveryActionUpTo + sampled)
        #expect(summary.duration.count == summary.latency.count && summary.executed == 300)
        #expect(
            summary.duration.maxNanos >= 150_000_000, "the longest run, sampled or not: \(summary.duration.maxNanos)")
        #expect(summary.longActions == 1 && engine.findings().map(\.kind) == [.longAction], "every run is checked")
        // An action with a due time is always measured, from it.
        let delayed = probe.willSchedule(running: {})
        delayed.expectRun(atUptimeNanoseconds: DispatchTime.now().uptimeNanoseconds)
        delayed.run()
        #expect(probe.summary().latency.count == SchedulerProbe.latencyEveryActionUpTo + sampled + 1)
        #expect(probe.summary().duration.count == SchedulerProbe.latencyEveryActionUpTo + sampled + 1)
    }

    /// An action that carries its work can take the stack and test its caller knows (an
    /// executor's): it is live with them until it ran, and a pending one is found with them.
    @Test func anActionCarryingItsWorkTakesTheStackAndTestItIsGiven() {
        let engine = makeEngine()
        let probe = engine.makeSchedulerProbe(label: "given")
        let madeAt = engine.captureAllocationStack()
        let test = TestIdentity(name: "SchedulerProbeTests.given")
        var runs = 0
        let action = probe.willSchedule(stack: madeAt, test: test) { runs += 1 }
        #expect(action.stack == madeAt && action.test == test && !action.isFinished)
        let live = engine.ledger.liveResources(test: test)
        #expect(live.count == 1 && live.first?.stack == madeAt && live.first?.kind == .scheduledAction)
        #expect(engine.ledger.mayHaveLive(test: test), "a pending action of a probe keeps a checkpoint scanning")
        action.run()
        #expect(runs == 1 && action.isFinished && engine.ledger.liveResources(test: test).isEmpty)
        #expect(!engine.ledger.mayHaveLive(test: test))
        #expect(probe.summary().executed == 1 && probe.summary().pending == 0)
    }

    /// A probe for one dispatch queue asks Dispatch on its first run only; every run is still
    /// held to the expectation.
    @Test func aFixedQueueIsAskedOnceEveryRunChecked() {
        let engine = makeEngine()
        let offMain = engine.makeSchedulerProbe(label: "fixed", expectation: .mainQueue, fixedQueue: true)
        let group = DispatchGroup()
        let queue = DispatchQueue(label: "probe-tests.fixed")
        for _ in 0..<3 { schedule(offMain, on: queue, group: group) }
        group.wait()
        #expect(offMain.fixedQueue && offMain.summary().threadViolations == 3)
        #expect(engine.findings().filter { $0.kind == .wrongThread }.count == 3)
        let main = engine.makeSchedulerProbe(label: "main", expectation: .mainQueue, fixedQueue: true)
        for _ in 0..<3 { schedule(main, on: .main, group: group) }
        #expect(group.wait(timeout: .now() + 30) == .success)
        #expect(main.summary().threadViolations == 0 && main.summary().executed == 3)
        #expect(main.summary().threads.allSatisfy { $0.isMainQueue })
    }

    /// Without `fixedQueue` (a scheduler that runs actions where it is called), each run is
    /// asked: the same probe meets and misses the expectation.
    @Test func withoutAFixedQueueEachRunIsAsked() {
        let engine = makeEngine()
        let probe = engine.makeSchedulerProbe(label: "anywhere", expectation: .offMainQueue)
        let group = DispatchGroup()
        schedule(probe, on: .global(), group: group)
        schedule(probe, on: .main, group: group)
        schedule(probe, on: .global(), group: group)
        #expect(group.wait(timeout: .now() + 30) == .success)
        #expect(!probe.fixedQueue && probe.summary().executed == 3)
        #expect(probe.summary().threadViolations == 1, "only the run on the main queue")
    }

    @Test func histogramBucketsAndPercentiles() {
        let histogram = LatencyHistogram()
        for value in 1...1_000 { histogram.record(nanoseconds: UInt64(value) * 1_000) }
        let summary = histogram.summary()
        #expect(summary.count == 1_000)
        #expect(summary.minNanos == 1_000 && summary.maxNanos == 1_000_000)
        #expect(abs(Double(summary.p50Nanos) - 500_000) / 500_000 < 0.07)
        #expect(abs(Double(summary.p99Nanos) - 990_000) / 990_000 < 0.07)
        #expect(summary.buckets.reduce(0) { $0 + $1.count } == 1_000)
        #expect(summary.buckets.allSatisfy { $0.lowerNanos < $0.upperNanos })
        #expect(LatencyHistogram().summary().count == 0)
        let tiny = LatencyHistogram()
        tiny.record(nanoseconds: 0)
        tiny.record(nanoseconds: UInt64.max)
        #expect(tiny.summary().count == 2)
    }
}
