import OpenCombineShim
import ReactiveDiagnostics

/// The `Cancellable` of a repeating action: cancelling it ends the live timer.
final class TimerCancellation: Cancellable {
    private let action: ScheduledAction
    private let base: any Cancellable
    /// The wrapped cancellable cancels when released (`AnyCancellable`), so releasing this
    /// one ends the timer too.
    private let endsOnRelease: Bool

    init(action: ScheduledAction, base: any Cancellable) {
        self.action = action
        self.base = base
        endsOnRelease = base is AnyCancellable
    }

    func cancel() {
        action.probe.didCancel(action)
        base.cancel()
    }

    deinit {
        if endsOnRelease {
            action.probe.didCancel(action)
        }
    }
}
