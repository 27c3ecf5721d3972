#if RxSwift  // the package trait RxSwift (Package.swift): without it, this module is empty
import Synchronization

/// The due time of a periodic action's next run, so that each run's latency is measured
/// from when it was due rather than from when the timer was created.
final class PeriodicClock: Sendable {
    private let next: Atomic<UInt64>
    private let period: UInt64

    init(firstDue: UInt64, period: UInt64) {
        next = Atomic(firstDue)
        self.period = period
    }

    /// The due time of the coming run.
    var due: UInt64 {
        next.load(ordering: .relaxed)
    }

    /// Moves to the following run and returns its due time.
    func advance() -> UInt64 {
        next.wrappingAdd(period, ordering: .relaxed).newValue
    }
}
#endif
