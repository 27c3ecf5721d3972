#if RxSwift  // the package trait RxSwift (Package.swift): without it, this module is empty
@_spi(Integration) public import ReactiveDiagnostics
import ReactiveDiagnosticsReport
@preconcurrency public import RxSwift

/// A scheduler that watches the work it runs: a wrapper around any RxSwift scheduler.
///
/// Every action scheduled through it is counted and, until it runs or is disposed, is a
/// live resource with the stack that scheduled it: still pending when its test ends, it is
/// a `pendingAction`. A periodic action (`Observable.interval`, `schedulePeriodic`) is a live
/// timer until disposed, an `uncancelledTimer` when its test ends. Each run records its
/// latency, the thread it ran on and its duration, checks the thread expectation
/// (`wrongThread`) and the long-action threshold (`longAction`); ``summary()`` and the
/// report show the statistics.
///
/// ```swift
/// final class SearchViewModel {
///     init(query: Observable<String>, api: SearchAPI, ui: some SchedulerType = MainScheduler.instance) { … }
/// }
///
/// @Test func resultsArriveOnTheMainQueue() {
///     let ui = MainScheduler.instance.diagnosed("search ui", expecting: .mainQueue)
///     let model = SearchViewModel(query: query, api: api, ui: ui)
///     // … a result delivered off the main queue, or a debounce still pending at the end,
///     // is now a finding that points at the code that scheduled it.
/// }
/// ```
///
/// Use it anywhere RxSwift takes a scheduler: `observe(on:)`, `subscribe(on:)`,
/// `Observable.interval(_:scheduler:)`, `debounce`, `delay`, `timeout`. Wrapping a
/// `SerialDispatchQueueScheduler` makes `observe(on:)` take RxSwift's general path instead
/// of its serial-queue shortcut; both deliver serially on the same queue.
public final class DiagnosticScheduler<Base: ImmediateSchedulerType>: ImmediateSchedulerType {
    /// The scheduler that runs the work.
    public let base: Base
    /// The engine side: counts, latency, threads and findings.
    package let probe: SchedulerProbe

    /// Wraps `base`.
    ///
    /// - Parameters:
    ///   - base: The scheduler that runs the work.
    ///   - label: Names the scheduler in findings and in the report.
    ///   - expectation: Where actions must run (for example `.mainQueue`), if anywhere.
    ///   - longActionThreshold: Actions running longer are `longAction` findings; `nil`
    ///     uses the engine's configured threshold.
    ///   - engine: Where actions and findings are recorded.
    public init(
        _ base: Base, label: String, expecting expectation: ThreadExpectation? = nil,
        longActionThreshold: Duration? = nil, engine: DiagnosticsEngine = .shared
    ) {
        self.base = base
        // These run every action on one dispatch queue (MainScheduler is a serial one, and
        // ConcurrentMainScheduler runs on the main queue): the main-queue rule is asked of the
        // first run only.
        probe = engine.makeSchedulerProbe(
            label: label, expectation: expectation, longActionThreshold: longActionThreshold,
            fixedQueue: base is SerialDispatchQueueScheduler || base is ConcurrentDispatchQueueScheduler
                || base is ConcurrentMainScheduler)
    }

    /// The scheduler's label.
    public var label: String {
        probe.label.name
    }

    /// Whether the base scheduler runs every action on one dispatch queue (so the main-queue
    /// rule is asked of the first run only). For the adapter's tests.
    @_spi(Testing) public var runsOnOneQueue: Bool {
        probe.fixedQueue
    }

    /// Counts, pending work, latency, duration and threads so far.
    public func summary() -> SchedulerSummary {
        probe.summary()
    }

    /// Schedules `action` on the base scheduler, tracking it until it runs or is disposed.
    public func schedule<StateType>(
        _ state: StateType, action: @escaping (StateType) -> any Disposable
    ) -> any Disposable {
        guard probe.recorder.isEnabled else {
            return base.schedule(state, action: action)
        }
        let scheduled = probe.willSchedule()
        let disposable = base.schedule(state, action: tracked(scheduled, action))
        return ScheduledActionDisposable(probe: probe, action: scheduled, base: disposable)
    }

    /// Wraps a one-shot action so that its run is reported to the probe.
    func tracked<StateType>(
        _ scheduled: ScheduledAction, _ action: @escaping (StateType) -> any Disposable
    ) -> (StateType) -> any Disposable {
        let probe = probe
        return { state in
            let run = probe.willRun(scheduled)
            defer { probe.didRun(scheduled, run) }
            return action(state)
        }
    }
}

extension ImmediateSchedulerType {
    /// Wraps this scheduler in a ``DiagnosticScheduler``.
    ///
    /// ```swift
    /// let ui = MainScheduler.instance.diagnosed("ui", expecting: .mainQueue)
    /// let io = ConcurrentDispatchQueueScheduler(qos: .utility).diagnosed("io", expecting: .offMainQueue)
    /// ```
    public func diagnosed(
        _ label: String, expecting expectation: ThreadExpectation? = nil, longActionThreshold: Duration? = nil,
        engine: DiagnosticsEngine = .shared
    ) -> DiagnosticScheduler<Self> {
        DiagnosticScheduler(
            self, label: label, expecting: expectation, longActionThreshold: longActionThreshold, engine: engine)
    }
}
#endif
