import OpenCombineShim

/// The "updated N seconds ago" label: ticks on a repeating timer while the screen is visible.
///
/// The bug is the timer that outlives its screen: nothing cancels it, and its closure keeps
/// the view model alive, so it ticks forever.
public final class ClockViewModel<S: Scheduler> {
    public private(set) var ticks = 0
    private let scheduler: S
    private let interval: S.SchedulerTimeType.Stride
    private var timer: (any Cancellable)?

    public init(scheduler: S, interval: S.SchedulerTimeType.Stride) {
        self.scheduler = scheduler
        self.interval = interval
    }

    public func start() {
        if DemoVariant.fixesApplied {
            timer = scheduler.schedule(after: scheduler.now, interval: interval) { [weak self] in
                self?.ticks += 1
            }
        } else {
            // Bug: the timer's closure keeps `self`, and `self` keeps the timer: a cycle that
            // only cancelling would break, and `stop()` does not cancel.
            timer = scheduler.schedule(after: scheduler.now, interval: interval) {
                self.ticks += 1
            }
        }
    }

    public func stop() {
        if DemoVariant.fixesApplied {
            // Fixed: stopping cancels the repeating timer.
            timer?.cancel()
            timer = nil
        }
    }
}
