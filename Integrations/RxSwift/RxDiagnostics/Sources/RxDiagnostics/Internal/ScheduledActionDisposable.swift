#if RxSwift  // the package trait RxSwift (Package.swift): without it, this module is empty
import ReactiveDiagnostics
@preconcurrency import RxSwift

/// The disposable of an action scheduled through a ``DiagnosticScheduler``: disposing it
/// ends the live action or timer (a no-op for a one-shot action that already ran), then
/// disposes the base scheduler's disposable.
final class ScheduledActionDisposable: Cancelable {
    private let probe: SchedulerProbe
    private let action: ScheduledAction
    private let base: any Disposable

    init(probe: SchedulerProbe, action: ScheduledAction, base: any Disposable) {
        self.probe = probe
        self.action = action
        self.base = base
    }

    var isDisposed: Bool {
        (base as? any Cancelable)?.isDisposed ?? action.isFinished
    }

    func dispose() {
        probe.didCancel(action)
        base.dispose()
    }
}
#endif
