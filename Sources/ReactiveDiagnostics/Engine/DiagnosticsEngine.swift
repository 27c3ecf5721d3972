public import Foundation
import ReactiveDiagnosticsReport
import ReactiveDiagnosticsRetainPaths
package import ReactiveDiagnosticsSymbolication
import Synchronization
import _ReactiveDiagnosticsSupport

/// The hub of ReactiveDiagnostics: stacks, the resource ledger, findings, scheduler probes
/// and the report.
///
/// Adapters (Combine, RxSwift, callbacks) feed it; test glue asks it, at the end of each
/// test, what that test left behind; the report is written from it when the run ends.
/// Most code uses ``shared``, configured from `REACTIVE_DIAGNOSTICS_*` environment variables;
/// tests of the library itself can make private engines.
///
/// ```swift
/// let engine = DiagnosticsEngine.shared
/// let checkpoint = engine.beginTest(named: "FeedTests.testRefresh()")
/// // … run code that uses diagnosed streams …
/// let outcome = engine.finishTest(checkpoint)
/// for finding in outcome.failures {
///     print(engine.describe(finding))        // message plus symbolized stacks
/// }
/// try engine.writeReport()
/// ```
public final class DiagnosticsEngine: Sendable {
    /// The process-wide engine, configured from the environment at first use. A variable
    /// that is not understood is named on standard error and the default is used instead.
    public static let shared: DiagnosticsEngine = {
        let configuration: Configuration
        do {
            configuration = try Configuration(environment: ProcessInfo.processInfo.environment)
        } catch {
            StandardError.write("ReactiveDiagnostics: ignoring environment configuration: \(error)\n")
            configuration = Configuration()
        }
        return DiagnosticsEngine(configuration: configuration)
    }()

    /// Every distinct captured stack.
    package let stacks = StackInterner()
    /// Live resources.
    package let ledger = ResourceLedger()
    /// Symbolizes stacks (shared cache).
    package let symbolizer: Symbolizer
    /// When the engine was created.
    public let startDate = Date()
    /// Resolves file:line when a report is written or a finding fails a test (shared cache).
    package let sourceLineResolver: SourceLineResolver

    let findingStore: FindingStore
    let startUptime = DispatchTime.now().uptimeNanoseconds
    private let settings: LockedValue<Configuration>
    let hotEnabled: Atomic<Bool>
    let hotStackDepth: Atomic<Int>
    private let hotEventStacks: Atomic<Bool>
    /// ``Configuration/explainsRetainPaths``: whether anchors are worth storing.
    let hotRetainPaths: Atomic<Bool>
    /// Thread-hop probe settings and what is left of their budget.
    let hopProbes: HopProbeBudget
    /// The statistics of each scheduler label, in the order the labels were first used.
    let schedulers = LockedValue(SchedulerLabels())
    /// Who its scheduler probes' actions belong to (see `ActionLaneHost`).
    let engineLaneOwners = EngineLaneOwners()
    let premature = PrematureCancelLedger()
    let tests = LockedValue(TestLog())
    let fingerprints = LockedValue([FingerprintKey: String]())
    let journal = LockedValue<CrashJournal?>(nil)
    /// The report this engine last wrote to its configured path, and that path: what
    /// ``writeReportIfChanged()`` compares with instead of reading the file back.
    let lastWrittenReport = LockedValue<(path: String, report: DiagnosticsReport)?>(nil)
    /// Second stacks that explain leaks, by allocation site (see ``explainLeaks(of:label:allocatedAt:by:role:)``).
    let leakRelations = LockedValue([LeakSite: LeakRelation]())
    /// Operators' inner subscriptions of the open tests, by allocation stack (see
    /// ``nestLeaks(allocatedAt:inside:operatorName:test:)``).
    let nestedLeaks = LockedValue([StackID: NestedLeak]())
    /// The marker each running test's unstructured tasks inherit, held weakly (see
    /// ``trackingUnstructuredTasks(of:isolation:_:)``).
    let taskSentinels = LockedValue([TestCheckpoint: WeakTaskSentinel]())
    /// The unstructured tasks started during this engine's tests and still followed.
    let trackedTasks = TrackedTasks()
    /// The tests begun and not finished yet (raw ``TestIdentity`` → how many checkpoints):
    /// an unstructured task is followed by the engine whose test started it.
    let openTests = LockedValue([UInt32: Int]())
    /// The test of a serial runner (XCTest) in progress, as a raw ``TestIdentity``; 0 for none.
    /// Per engine, so that a private engine's serial test never claims another engine's work.
    let serialTestID = Atomic<UInt32>(0)

    /// Creates an engine.
    public convenience init(configuration: Configuration = Configuration()) {
        self.init(configuration: configuration, symbolizer: .shared, sourceLineResolver: .shared)
    }

    /// Creates an engine that resolves source lines through `sourceLineResolver`.
    package init(configuration: Configuration, symbolizer: Symbolizer = .shared, sourceLineResolver: SourceLineResolver)
    {
        self.symbolizer = symbolizer
        self.sourceLineResolver = sourceLineResolver
        settings = LockedValue(configuration)
        hotEnabled = Atomic(configuration.isEnabled)
        hotStackDepth = Atomic(configuration.capturesAllocationStacks ? configuration.stackDepth : 0)
        hotEventStacks = Atomic(configuration.capturesEventStacks)
        hotRetainPaths = Atomic(configuration.explainsRetainPaths)
        hopProbes = HopProbeBudget(configuration.threadHopProbe)
        findingStore = FindingStore(capacity: configuration.maximumFindings)
        FrameClassifier.shared.addFrameworkModules(configuration.frameworkModules)
        StackCapture.useFramePointers(configuration.capturesAlongFramePointers)
        MainQueue.install()
        Self.registerBookkeeping
        engineLaneOwners.attach(self)
        // Its scheduler probes' actions are kept in lanes: its ledger's queries read them there.
        ledger.external.withLock { $0.append(ActionLanes()) }
        updateJournal(for: configuration)
        if configuration.tracksUnstructuredTasks {
            followUnstructuredTasks()
        }
        if configuration.isEnabled && configuration.settlesWhenIdle {
            // From the start: timed work scheduled before the first test may still be due.
            WorkInFlight.arm()
        }
        if configuration.checksStreamMisuse {
            checkStreamMisuse()
        }
    }

    /// The ledger's store of held objects is the library's bookkeeping, never the holder that
    /// explains a leak (for the retain-path walk); registered once per process.
    private static let registerBookkeeping: Void = RetainPathBookkeeping.registerArrayStorage(of: HeldEntry.self)

    /// Tells the retain-path walk that dictionaries of `type` are an adapter's own bookkeeping
    /// (tables keyed by objects' identities): what is found in them never explains a leak, and
    /// the memory scan for a leak's holders does not read them whole to find that out.
    ///
    /// ```swift
    /// DiagnosticsEngine.registerBookkeeping([StageKey: StageSlot].self)
    /// ```
    package static func registerBookkeeping<Key: Hashable, Value>(_ type: [Key: Value].Type) {
        RetainPathBookkeeping.registerDictionaryStorage(of: type)
    }

    /// Where the crash journal goes (next to the report), or `nil` when reports are off.
    public var journalPath: String? {
        journal.withLock { $0?.path }
    }

    /// Waits until the crash journal has named every stack journaled so far (the thread that
    /// makes a finding journals its stacks raw; a queue names them after the fact).
    package func waitUntilJournalNamed() {
        journal.withLock { $0 }?.waitUntilNamed()
    }

    /// Keeps a crash journal next to the report whenever reports are written.
    private func updateJournal(for configuration: Configuration) {
        let wanted =
            configuration.writesReport
            ? DiagnosticsReport.journalPath(forReport: configuration.resolvedReportPath) : nil
        let (removed, added): (CrashJournal?, CrashJournal?) = journal.withLock { current in
            guard current?.path != wanted else { return (nil, nil) }
            let old = current
            current = wanted.map { CrashJournal(engine: self, path: $0) }
            return (old, current)
        }
        if let removed {
            findingStore.removeObserver(removed)
        }
        if let added {
            findingStore.addObserver(added)
        }
    }

    /// The current configuration.
    public var configuration: Configuration {
        settings.withLock { $0 }
    }

    /// Replaces the configuration. Resources and findings already recorded are kept.
    public func configure(_ configuration: Configuration) {
        let previous = settings.withLock { settings in
            defer { settings = configuration }
            return settings
        }
        hotEnabled.store(configuration.isEnabled, ordering: .relaxed)
        hotStackDepth.store(configuration.capturesAllocationStacks ? configuration.stackDepth : 0, ordering: .relaxed)
        hotEventStacks.store(configuration.capturesEventStacks, ordering: .relaxed)
        hotRetainPaths.store(configuration.explainsRetainPaths, ordering: .relaxed)
        if previous.threadHopProbe != configuration.threadHopProbe {
            hopProbes.update(configuration.threadHopProbe)  // a new budget only for new settings
        }
        FrameClassifier.shared.addFrameworkModules(configuration.frameworkModules)
        StackCapture.useFramePointers(configuration.capturesAlongFramePointers)
        updateJournal(for: configuration)
    }

    /// Changes part of the configuration.
    ///
    /// ```swift
    /// DiagnosticsEngine.shared.updateConfiguration { $0.stackDepth = 16 }
    /// ```
    public func updateConfiguration(_ change: (inout Configuration) -> Void) {
        var copy = configuration
        change(&copy)
        configure(copy)
    }

    /// Whether adapters should check and track at all (the master switch).
    @inline(__always)
    public var isEnabled: Bool {
        hotEnabled.load(ordering: .relaxed)
    }

    /// Whether leaked resources get a retain path (``Configuration/explainsRetainPaths``):
    /// adapters skip naming anchors when it is off.
    @inline(__always)
    public var explainsRetainPaths: Bool {
        hotRetainPaths.load(ordering: .relaxed)
    }

    /// Seconds since the engine started.
    var elapsed: Double {
        Double(DispatchTime.now().uptimeNanoseconds &- startUptime) / 1e9
    }

    // MARK: Stacks

    /// Captures the caller's stack for a resource being allocated, if allocation stacks are on.
    @inline(never)
    public func captureAllocationStack() -> StackID {
        let depth = hotStackDepth.load(ordering: .relaxed)
        guard depth > 0 else { return .none }
        return StackCapture.capture(depth: depth, into: stacks)
    }

    /// Captures the caller's stack at depth `depth` (64 frames by default) regardless of configuration.
    @inline(never)
    public func captureStack(depth: Int = 64) -> StackID {
        StackCapture.capture(depth: depth, into: stacks)
    }

    /// Captures the caller's stack as an offending event's stack, if event stacks are on.
    @inline(never)
    public func captureEventStack() -> StackID {
        guard hotEventStacks.load(ordering: .relaxed) else { return .none }
        let depth = hotStackDepth.load(ordering: .relaxed)
        return StackCapture.capture(depth: depth > 0 ? depth : StackCapture.defaultDepth, into: stacks)
    }

    /// A stack symbolized, with the library's own leading frames dropped.
    public func symbolize(_ stack: StackID) -> SymbolizedStack {
        symbolizer.symbolizeDroppingOwnFrames(stacks.addresses(of: stack), id: stack)
    }

    // MARK: Factories

    /// A grammar checker for one new subscription: captures its allocation stack now and
    /// registers it as live.
    ///
    /// Adapters that learn of a subscription in two steps (a hook that sees the subscribe
    /// call first and the subscription later, possibly on another thread) pass the stack
    /// and test they captured at the first step; `nil` captures and resolves them now.
    ///
    /// - Parameters:
    ///   - label: The name findings and the report show for the stream.
    ///   - contract: What the stream promises, checked as its events arrive; `nil` checks the
    ///     grammar alone.
    ///   - options: What the adapter's framework allows (see ``StreamMonitor/Options``).
    ///   - allocationStack: The stack captured at the subscribe call; `nil` captures it now.
    ///   - test: The test the subscription belongs to; `nil` resolves it now.
    ///   - anchor: The object whose references explain the subscription's lifetime,
    ///     when it exists already (its subscriber): if the subscription leaks, the engine looks for
    ///     the retain cycle from there (see ``StreamMonitor/setRetainPathAnchor(_:)``).
    package func makeStreamMonitor(
        label: DiagnosticLabel, contract: StreamContract? = nil, options: StreamMonitor.Options = .init(),
        allocationStack: StackID? = nil, test: TestIdentity? = nil, anchor: AnyObject? = nil
    ) -> StreamMonitor {
        StreamMonitor(
            recorder: self, label: label, contract: contract, options: options, allocationStack: allocationStack,
            test: test, anchor: anchor)
    }

    /// A probe for a diagnostic scheduler; its statistics appear in the report.
    ///
    /// Pass `fixedQueue: true` when every action runs on one dispatch queue (see
    /// ``SchedulerProbe/init(recorder:label:expectation:longActionThreshold:fixedQueue:)``).
    ///
    /// ```swift
    /// let probe = engine.makeSchedulerProbe(label: "ui", expectation: .mainQueue, fixedQueue: true)
    /// ```
    package func makeSchedulerProbe(
        label: String, expectation: ThreadExpectation? = nil, longActionThreshold: Duration? = nil,
        fixedQueue: Bool = false
    ) -> SchedulerProbe {
        SchedulerProbe(
            recorder: self, label: DiagnosticLabel(label), expectation: expectation,
            longActionThreshold: longActionThreshold ?? configuration.longActionThreshold, fixedQueue: fixedQueue)
    }

    /// Registers a live resource of any kind (for adapters without a stream or scheduler).
    ///
    /// ```swift
    /// let token = engine.track(.observer, label: "keyboard")   // allocation stack captured here
    /// // …
    /// engine.untrack(token)
    /// ```
    public func track(_ kind: ResourceKind, label: String) -> ResourceToken {
        ledger.register(kind: kind, label: DiagnosticLabel(label), stack: captureAllocationStack(), test: currentTest())
    }

    /// Ends a resource registered with ``track(_:label:)``.
    @discardableResult
    public func untrack(_ token: ResourceToken) -> Bool {
        ledger.unregister(token)
    }

    /// How many resources of `kind` are alive now (for tests of adapters).
    @_spi(Testing) public func liveCount(of kind: ResourceKind) -> Int {
        ledger.liveCount(of: kind)
    }

    /// How many resources of `kind` were ever registered (for tests of adapters).
    @_spi(Testing) public func registeredCount(of kind: ResourceKind) -> Int {
        ledger.registeredCount(of: kind)
    }

    /// Statistics of every scheduler probe.
    public func schedulerSummaries() -> [SchedulerSummary] {
        schedulers.withLock { $0.order }.map { $0.summary() }
    }

    /// How many of this engine's scheduler probes are not released yet: those whose schedulers
    /// or actions are still around (for tests that check that dropped schedulers are released).
    ///
    /// ```swift
    /// engine.reclaimQuietLanes()
    /// #expect(engine.liveSchedulerProbes() == 0)
    /// ```
    @_spi(Integration) public func liveSchedulerProbes() -> Int {
        schedulers.withLock { $0.order }.reduce(0) { $0 + $1.liveInstances }
    }
}

/// What a fingerprint depends on: findings sharing these share a fingerprint.
struct FingerprintKey: Hashable {
    var kind: FindingKind
    var label: String?
    var stack: StackID
}

/// The list of tests run, for the report.
struct TestLog {
    var records: [TestRecord] = []
}

/// Writes human output to standard error (standard output belongs to the test runner).
enum StandardError {
    static func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
