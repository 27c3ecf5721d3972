/// How a delivery that arrives on another thread than the previous one is held open, so that a
/// second thread emitting at the same time is seen even when the emitter's own locks line the
/// two threads up.
///
/// Two threads delivering to one stream at once are found when their deliveries overlap (one
/// compare-and-swap claims each delivery). An emitter that takes a lock of its own on the way
/// to the checked stage can convoy the two threads so that the stage's short deliveries stop
/// overlapping while the emitter's still do: RxSwift's debug `SynchronizationTracker` does it,
/// printing its warning under its lock upstream of every `.diagnosed()` stage. So a delivery
/// that changed threads keeps its claim for a *probe window* after its downstream returned: a
/// thread that is really emitting at the same moment runs into it and is reported, with both
/// threads and both stacks.
///
/// It can never raise a false finding: a correct serial source (a lock, a serial queue,
/// `observe(on:)`, `receive(on:)`) starts its next delivery only after this one returned, so it
/// cannot collide; it only waits, boundedly. A stream probes its first ``probesPerStream``
/// thread changes, windows doubling from ``firstWindow`` to ``maximumWindow``, then one change
/// in ``thereafterEvery`` with the longest window, never waiting more than ``budgetPerStream``
/// in all, and stops once it reported a concurrent delivery; all streams of an engine together
/// never wait longer than ``budget``. A window ends as soon as a collision is seen.
///
/// First probes are also counted per *site*, the place a stream was subscribed (its allocation
/// stack and label): the streams of one site take ``probesPerSite`` first probes between them,
/// then only the periodic ones. A race is a property of the code that emits, not of one
/// subscription: a view model made in every test subscribes the same chain thousands of times,
/// and probing each instance's first hops made a 2,000-test suite wait about 35 µs a test
/// (Docs/Performance.md, "A long suite of correct tests").
///
/// ```swift
/// DiagnosticsEngine.shared.updateConfiguration { $0.threadHopProbe = .off }   // narrow windows only
/// ```
public struct ThreadHopProbe: Sendable, Hashable {
    /// A stream's first thread changes that are probed; `0` (with ``thereafterEvery`` `0`)
    /// turns probing off.
    public var probesPerStream: Int
    /// After those, one thread change in this many is probed, with the longest window (`0`: none).
    public var thereafterEvery: Int
    /// What one stream's probes may wait in all.
    public var budgetPerStream: Duration
    /// The first probes that all streams subscribed at one site (allocation stack and label)
    /// make together; `0` leaves each stream its own ``probesPerStream``.
    public var probesPerSite: Int
    /// The first probe's window; each following probe of the stream doubles it.
    public var firstWindow: Duration
    /// The longest window.
    public var maximumWindow: Duration
    /// What all probes of one engine may wait in all, from its last configuration.
    public var budget: Duration

    /// Creates probe settings; the defaults cost a correct thread-hopping stream at most 20 ms
    /// (4 ms for its first 8 thread changes, and those only while its site has first probes
    /// left), and an engine at most 1 s.
    public init(
        probesPerStream: Int = 8, firstWindow: Duration = .microseconds(50),
        maximumWindow: Duration = .microseconds(800), thereafterEvery: Int = 32,
        budgetPerStream: Duration = .milliseconds(20), budget: Duration = .seconds(1), probesPerSite: Int = 8
    ) {
        self.probesPerStream = probesPerStream
        self.probesPerSite = probesPerSite
        self.thereafterEvery = thereafterEvery
        self.budgetPerStream = budgetPerStream
        self.firstWindow = firstWindow
        self.maximumWindow = maximumWindow
        self.budget = budget
    }

    /// No probing: concurrent deliveries are found only where the stage's own deliveries overlap.
    public static let off = ThreadHopProbe(probesPerStream: 0, thereafterEvery: 0)

    /// What an engine's probes cost so far (``DiagnosticsEngine/threadHopProbeUsage``).
    public struct Usage: Sendable, Hashable {
        /// Probe windows opened.
        public var probes: Int
        /// Time spent in them.
        public var waited: Duration
        /// What is left of the budget.
        public var remaining: Duration
    }
}

extension DiagnosticsEngine {
    /// What the thread-hop probes of this engine's streams cost so far (see ``ThreadHopProbe``).
    ///
    /// ```swift
    /// let usage = DiagnosticsEngine.shared.threadHopProbeUsage   // probes made, time waited, budget left
    /// ```
    public var threadHopProbeUsage: ThreadHopProbe.Usage {
        hopProbes.usage
    }
}
