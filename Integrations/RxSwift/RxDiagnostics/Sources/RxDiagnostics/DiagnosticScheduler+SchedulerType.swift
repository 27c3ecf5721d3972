#if RxSwift  // the package trait RxSwift (Package.swift): without it, this module is empty
public import Dispatch
import ReactiveDiagnostics
@preconcurrency public import RxSwift

extension DiagnosticScheduler: SchedulerType where Base: SchedulerType {
    /// The base scheduler's time (virtual time for a `VirtualTimeScheduler`).
    public var now: RxTime {
        base.now
    }

    /// Schedules `action` after `dueTime`; its latency is measured from the due time.
    public func scheduleRelative<StateType>(
        _ state: StateType, dueTime: RxTimeInterval, action: @escaping (StateType) -> any Disposable
    ) -> any Disposable {
        guard probe.recorder.isEnabled else {
            return base.scheduleRelative(state, dueTime: dueTime, action: action)
        }
        let scheduled = probe.willSchedule()
        if let delay = dueTime.nanoseconds {
            scheduled.expectRun(atUptimeNanoseconds: DispatchTime.now().uptimeNanoseconds &+ delay)
        }
        let disposable = base.scheduleRelative(state, dueTime: dueTime, action: tracked(scheduled, action))
        return ScheduledActionDisposable(probe: probe, action: scheduled, base: disposable)
    }

    /// Schedules a periodic action: a live timer until the returned disposable is disposed.
    public func schedulePeriodic<StateType>(
        _ state: StateType, startAfter: RxTimeInterval, period: RxTimeInterval,
        action: @escaping (StateType) -> StateType
    ) -> any Disposable {
        guard probe.recorder.isEnabled else {
            return base.schedulePeriodic(state, startAfter: startAfter, period: period, action: action)
        }
        let scheduled = probe.willSchedule(repeating: true)
        let clock = PeriodicClock(
            firstDue: DispatchTime.now().uptimeNanoseconds &+ (startAfter.nanoseconds ?? 0),
            period: period.nanoseconds ?? 0)
        scheduled.expectRun(atUptimeNanoseconds: clock.due)
        let probe = probe
        let disposable = base.schedulePeriodic(state, startAfter: startAfter, period: period) { state in
            let run = probe.willRun(scheduled)
            let next = action(state)
            probe.didRun(scheduled, run)
            scheduled.expectRun(atUptimeNanoseconds: clock.advance())
            return next
        }
        return ScheduledActionDisposable(probe: probe, action: scheduled, base: disposable)
    }
}
#endif
