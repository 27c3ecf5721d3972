import ReactiveDiagnosticsReport

/// Something the engine found: a leak, a grammar or contract violation, a scheduler problem.
///
/// A finding names its evidence: the kind, the stream or scheduler label, the allocation
/// stack of the resource involved, the stack and thread of the offending event, and the
/// test that was running. Its fingerprint (computed when stacks are symbolized, see
/// ``DiagnosticsEngine/fingerprint(of:)``) identifies it across runs and rebuilds.
///
/// ```swift
/// for finding in DiagnosticsEngine.shared.findings() where finding.severity == .error {
///     print(finding.kind, finding.message)
/// }
/// ```
public struct Finding: Sendable, Identifiable, Hashable {
    /// Unique within the process, in the order findings were made.
    public let id: Int
    /// What it is.
    public let kind: FindingKind
    /// How serious it is.
    public let severity: Severity
    /// A one-line description.
    public let message: String
    /// The stream, scheduler or resource label.
    public let label: String?
    /// For lifetime findings, the kind of resource.
    public let resourceKind: ResourceKind?
    /// The test it is attributed to.
    public let test: TestIdentity
    /// Where the resource involved was allocated.
    public let allocationStack: StackID
    /// Where the offending event happened.
    public let eventStack: StackID
    /// A second stack that explains it: the other thread of a concurrent delivery, or the
    /// stack named by `details["relatedStackRole"]` (where an iteration's stream was created).
    public internal(set) var relatedStack: StackID
    /// The thread of the offending event.
    public let thread: ThreadInfo?
    /// The other thread involved, when there is one.
    public internal(set) var otherThread: ThreadInfo?
    /// Seconds since the engine started.
    public let time: Double
    /// Kind-specific facts (`expected`, `actual`, `demand`, …).
    public let details: [String: String]
    /// For a leaked subscription: why it is still alive (the retain cycle it belongs to).
    public let retainPath: ReportRetainPath?
    /// For a leak that folds a chain: its stages, upstream first (empty otherwise).
    public let chain: [FindingStage]
    /// What the policy decided.
    public internal(set) var policy: FindingPolicy
    /// The suppression rule that matched, if any.
    public internal(set) var suppressedBy: String?

    /// Whether the finding should fail its test (policy `fail` or `trap`, and not suppressed).
    public var failsTest: Bool {
        suppressedBy == nil && (policy == .fail || policy == .trap)
    }
}

/// What an adapter tells the engine about a new finding.
///
/// ```swift
/// // An adapter that knows a callback fired twice:
/// engine.record(FindingDraft(
///     kind: .callbackCalledTwice, message: "callback 'load settings' called a second time",
///     label: "load settings", test: engine.currentTest(), allocationStack: madeAt))
/// ```
public struct FindingDraft: Sendable {
    /// What it is.
    public var kind: FindingKind
    /// A one-line description.
    public var message: String
    /// The stream, scheduler or resource label.
    public var label: String?
    /// For lifetime findings, the kind of resource.
    public var resourceKind: ResourceKind?
    /// The test to attribute it to; ``TestIdentity/none`` means "the current test".
    public var test: TestIdentity
    /// Where the resource involved was allocated.
    public var allocationStack: StackID
    /// Whether to capture the current stack as the event stack.
    public var capturesEventStack: Bool
    /// An event stack captured earlier (used instead of capturing one now).
    public var eventStack: StackID
    /// A second stack that explains the finding (see ``Finding/relatedStack``); name its role
    /// in `details["relatedStackRole"]` (for example `stream created`).
    public var relatedStack: StackID
    /// The other thread involved.
    public var otherThread: ThreadInfo?
    /// Kind-specific facts.
    public var details: [String: String]
    /// Overrides the kind's default severity.
    public var severity: Severity?
    /// For a leaked subscription: why it is still alive.
    public var retainPath: ReportRetainPath?
    /// For a leak that folds a chain: its stages, upstream first.
    public var chain: [FindingStage] = []

    /// Describes a finding.
    public init(
        kind: FindingKind, message: String, label: String? = nil, resourceKind: ResourceKind? = nil,
        test: TestIdentity = .none, allocationStack: StackID = .none, capturesEventStack: Bool = true,
        eventStack: StackID = .none, otherThread: ThreadInfo? = nil, details: [String: String] = [:],
        severity: Severity? = nil, relatedStack: StackID = .none, retainPath: ReportRetainPath? = nil
    ) {
        self.eventStack = eventStack
        self.relatedStack = relatedStack
        self.kind = kind
        self.message = message
        self.label = label
        self.resourceKind = resourceKind
        self.test = test
        self.allocationStack = allocationStack
        self.capturesEventStack = capturesEventStack
        self.otherThread = otherThread
        self.details = details
        self.severity = severity
        self.retainPath = retainPath
    }
}
