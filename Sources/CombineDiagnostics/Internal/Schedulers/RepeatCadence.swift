import ReactiveDiagnostics
import Synchronization

/// When the next run of a repeating action is due, for its latency.
final class RepeatCadence: Sendable {
    let firstDue: UInt64?
    private let interval: Int64?
    private let nextDue: Atomic<UInt64>

    init(firstDue: UInt64?, interval: Int64?) {
        self.firstDue = firstDue
        self.interval = interval
        nextDue = Atomic(firstDue ?? 0)
    }

    /// After a run: the next one is due one interval after this one was.
    func advance(_ action: ScheduledAction) {
        guard firstDue != nil, let interval, interval > 0 else { return }
        let due = nextDue.add(UInt64(interval), ordering: .relaxed).newValue
        action.expectRun(atUptimeNanoseconds: due)
    }
}
