import Dispatch
public import OpenCombineShim
@_spi(Integration) import ReactiveDiagnostics

/// A scheduler that wraps another one and tells what happens to the work given to it.
///
/// Every action scheduled through it is counted (scheduled, executed, cancelled, pending),
/// timed (the latency from when it was due to when it started, and how long it ran, as
/// histograms), placed (the threads it ran on) and checked: an action running longer than a
/// threshold is a `FindingKind.longAction` (it blocked the queue), and one running where
/// the scheduler's `ThreadExpectation` rules out is a `FindingKind.wrongThread` finding
/// that shows the stack where it was *scheduled*. Work left over is a leak at the test's
/// checkpoint: a delayed action that has not run is a `FindingKind.pendingAction`, a
/// repeating action whose `Cancellable` was never cancelled a `FindingKind.uncancelledTimer`.
///
/// It keeps the wrapped scheduler's time and options types, so it fits wherever that
/// scheduler does, including combine-schedulers' `AnySchedulerOf<DispatchQueue>` through
/// `eraseToAnyScheduler()`.
///
/// For example, a search screen's view model debounces what is typed and shows results on
/// the main queue:
///
/// ```swift
/// final class SearchViewModel: ObservableObject {
///     @Published var query = ""
///     @Published private(set) var results: [String] = []
///     private var cancellables: Set<AnyCancellable> = []
///
///     init(search: @escaping (String) -> AnyPublisher<[String], Never>, scheduler: AnySchedulerOf<DispatchQueue>) {
///         $query
///             .dropFirst()
///             .debounce(for: .milliseconds(300), scheduler: scheduler)
///             .removeDuplicates()
///             .flatMap(maxPublishers: .max(1), search)
///             .receive(on: scheduler)
///             .sink { [weak self] in self?.results = $0 }
///             .store(in: &cancellables)
///     }
/// }
///
/// // In the app: any work that lands off the main queue is a finding in debug builds.
/// let model = SearchViewModel(
///     search: api.search,
///     scheduler: DispatchQueue.main.diagnosed("search UI", expecting: .mainQueue).eraseToAnyScheduler())
/// ```
///
/// Its test controls time with a `TestScheduler` and learns what is still scheduled:
///
/// ```swift
/// @Test func typingDebouncesTheSearch() {
///     let clock = DispatchQueue.test
///     let scheduler = clock.diagnosed("search")
///     let model = SearchViewModel(search: { Just(["\($0)!"]).eraseToAnyPublisher() },
///                                 scheduler: scheduler.eraseToAnyScheduler())
///     model.query = "comb"
///     model.query = "combine"
///     clock.advance(by: .milliseconds(300))
///     #expect(model.results == ["combine!"])
///     // Two debounce timers (the first cancelled by the second keystroke) and one receive(on:).
///     let summary = scheduler.summary
///     #expect(summary.scheduled == 3 && summary.pending == 0 && summary.activeRepeating == 0)
/// }
/// ```
///
/// `schedule(after:…)` returns no `Cancellable` in Combine, so a delayed action ends only
/// when it runs. A repeating action ends when its `Cancellable` is cancelled, or released if
/// the wrapped scheduler's own cancellable cancels on release (an `AnyCancellable`, as
/// `DispatchQueue`, `RunLoop` and `TestScheduler` return).
public struct DiagnosticScheduler<Base: Scheduler>: Scheduler {
    /// The wrapped scheduler's time type.
    public typealias SchedulerTimeType = Base.SchedulerTimeType
    /// The wrapped scheduler's options.
    public typealias SchedulerOptions = Base.SchedulerOptions

    /// The scheduler that runs the actions.
    public let base: Base
    /// The engine-side probe: counts, latency, threads, findings.
    @usableFromInline package let probe: SchedulerProbe
    /// For a `DispatchQueue`: its libdispatch queue, which actions scheduled without options
    /// are handed to as they are, with no block made for each (see `DirectDispatch`).
    @usableFromInline let direct: DirectDispatch?

    /// Wraps `base`.
    ///
    /// - Parameters:
    ///   - base: The scheduler that runs the actions, such as `DispatchQueue.main`.
    ///   - label: The name findings and the report show.
    ///   - expectation: Where actions must run, for example `.mainQueue`.
    ///   - longActionThreshold: Actions running longer are findings; `nil` uses the
    ///     engine's configuration (250 ms by default).
    ///   - engine: Where findings and statistics go.
    public init(
        _ base: Base, label: String, expecting expectation: ThreadExpectation? = nil,
        longActionThreshold: Duration? = nil, engine: DiagnosticsEngine = .shared
    ) {
        self.base = base
        // A dispatch queue runs every action on itself: the main-queue rule is asked of its
        // first run only.
        probe = engine.makeSchedulerProbe(
            label: label, expectation: expectation, longActionThreshold: longActionThreshold,
            fixedQueue: base is DispatchQueue)
        direct = (base as? DispatchQueue).flatMap(DirectDispatch.init)
    }

    /// The wrapped scheduler's current time.
    public var now: SchedulerTimeType {
        base.now
    }

    /// The wrapped scheduler's minimum tolerance.
    public var minimumTolerance: SchedulerTimeType.Stride {
        base.minimumTolerance
    }

    /// The statistics so far: counts, latency and duration histograms, threads.
    public var summary: SchedulerSummary {
        probe.summary()
    }

    /// Schedules `action` to run as soon as possible; it is pending until it runs.
    ///
    /// Around a `DispatchQueue`, an action scheduled without options is handed to the queue as
    /// it is (`DirectDispatch`), with no block made for it; with options it
    /// goes through the queue's `schedule(options:_:)`, so their group, QoS and flags apply.
    ///
    /// Inlinable, so that it is specialized for the wrapped scheduler where it is called: the
    /// options are then passed to it without asking the generic type's metadata on every action.
    @inlinable
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        let scheduled = probe.willSchedule(running: action)
        if let direct, case .none = options {
            // What `DispatchQueue.async` does with no options, the action its own context.
            direct.async(scheduled)
        } else {
            // The action object is the closure's context: no allocation beyond it per action.
            base.schedule(options: options, scheduled.run)
        }
    }

    /// Schedules `action` to run once at `date`; it is pending until it runs.
    public func schedule(
        after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) {
        let scheduled = probe.willSchedule(running: action)
        if let due = dueUptime(of: date) {
            scheduled.expectRun(atUptimeNanoseconds: due)
        }
        base.schedule(after: date, tolerance: tolerance, options: options, scheduled.run)
    }

    /// Schedules `action` to run at `date` and every `interval` after; it is a live timer
    /// until the returned `Cancellable` is cancelled.
    public func schedule(
        after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?, _ action: @escaping () -> Void
    ) -> any Cancellable {
        let scheduled = probe.willSchedule(repeating: true)
        let cadence = RepeatCadence(firstDue: dueUptime(of: date), interval: SchedulerStride.nanoseconds(interval))
        if let due = cadence.firstDue {
            scheduled.expectRun(atUptimeNanoseconds: due)
        }
        let cancellable = base.schedule(after: date, interval: interval, tolerance: tolerance, options: options) {
            Self.run(scheduled, action)
            cadence.advance(scheduled)
        }
        return TimerCancellation(action: scheduled, base: cancellable)
    }

    private static func run(_ scheduled: ScheduledAction, _ action: () -> Void) {
        let run = scheduled.probe.willRun(scheduled)
        action()
        scheduled.probe.didRun(scheduled, run)
    }

    /// When `date` is due on the uptime clock, if the scheduler's stride says how far it is.
    private func dueUptime(of date: SchedulerTimeType) -> UInt64? {
        guard let delay = SchedulerStride.nanoseconds(base.now.distance(to: date)) else { return nil }
        return DispatchTime.now().uptimeNanoseconds &+ UInt64(max(delay, 0))
    }
}

extension DiagnosticScheduler: Sendable where Base: Sendable {}
