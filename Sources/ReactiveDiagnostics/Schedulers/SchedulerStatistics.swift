import CReactiveDiagnostics
import ReactiveDiagnosticsReport
import _ReactiveDiagnosticsSupport

/// What the diagnostic schedulers of one label counted, together: actions scheduled, run and
/// cancelled, latency and duration, the threads that ran them.
///
/// An engine keeps one per label and hands it to every ``SchedulerProbe`` of that label, so a
/// suite that makes a diagnosed scheduler per test (a view model each, `queue.diagnosed("ui")`)
/// keeps one set of histograms and counters per label, not one per scheduler (about 24 KB each),
/// and its report has one row per label with the number of schedulers made.
final class SchedulerStatistics: Sendable {
    let label: String
    /// The first expectation a scheduler of this label was made with.
    let expectation: String?
    let counts = SchedulerCounts()
    let latency = LatencyHistogram()
    let duration = LatencyHistogram()
    /// Runs per thread: one counter per thread number (see `rdiag_thread_shard`), so counting a
    /// run is one relaxed atomic add; a thread's name is read once, when it is first seen. Their
    /// sum is the runs (``SchedulerSummary/executed``).
    let threadRuns = AtomicCounters(
        count: SchedulerStatistics.threadSlots * SchedulerStatistics.threadSlotStride, isolated: true)
    let threadNames = LockedValue([Int: (name: String, isMainQueue: Bool)]())
    /// Schedulers made with this label (0), and those released since (1).
    private let instances = AtomicCounters(count: 2)

    /// Thread slots (a power of two): threads beyond share them.
    static let threadSlots = 64
    /// Counters between two threads' slots: a cache line each, so that threads running a
    /// concurrent queue's actions at once do not write the same line.
    static let threadSlotStride = 8

    init(label: String, expectation: String?) {
        self.label = label
        self.expectation = expectation
    }

    /// One more scheduler of this label.
    func noteInstance() {
        instances.add(0, 1)
    }

    /// A probe of this label was released (its schedulers and actions are gone).
    func noteInstanceReleased() {
        instances.add(1, 1)
    }

    /// Probes of this label not released yet.
    var liveInstances: Int {
        instances.load(0) - instances.load(1)
    }

    /// The row of the report.
    func summary() -> SchedulerSummary {
        let names = threadNames.withLock { $0 }
        var merged: [String: ThreadCount] = [:]
        var executed = 0
        for slot in 0..<Self.threadSlots {
            let runs = threadRuns.load(slot * Self.threadSlotStride)
            executed += runs
            guard runs > 0 else { continue }
            // More threads than slots share a slot: its runs go to the first thread seen there.
            let (name, isMainQueue) = names[slot] ?? ("thread slot \(slot)", false)
            merged[name, default: ThreadCount(thread: name, isMainQueue: isMainQueue, count: 0)].count += runs
        }
        return SchedulerSummary(
            label: label, scheduled: counts.scheduled, executed: executed, cancelled: counts.cancelled,
            pending: counts.pending, activeRepeating: counts.activeRepeating,
            longActions: counts.longActions, threadViolations: counts.threadViolations,
            expectation: expectation, latency: latency.summary(), duration: duration.summary(),
            threads: merged.values.sorted { $0.count != $1.count ? $0.count > $1.count : $0.thread < $1.thread },
            instances: instances.load(0))
    }
}

/// An engine's scheduler statistics by label, and in the order the labels were first used.
struct SchedulerLabels: Sendable {
    var byLabel: [String: SchedulerStatistics] = [:]
    var order: [SchedulerStatistics] = []
}
