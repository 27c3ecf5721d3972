import Foundation

/// One finding as stored in a report.
///
/// ```swift
/// let report = try DiagnosticsReport.load(from: URL(fileURLWithPath: "report.json"))
/// for finding in report.findings where finding.suppressedBy == nil && finding.severity == .error {
///     print(finding.kind, finding.label ?? "-", finding.test ?? "-", finding.fingerprint)
/// }
/// ```
public struct ReportFinding: Codable, Sendable, Equatable {
    /// Unique within the report, in the order the findings were made.
    public var id: Int
    /// The kind, for example `valueAfterTermination` or `leakedSubscription`.
    public var kind: String
    /// How serious it is.
    public var severity: ReportSeverity
    /// A one-line human description.
    public var message: String
    /// The stream, scheduler or resource label the finding is about.
    public var label: String?
    /// The kind of live resource involved, for lifetime findings (`subscription`, `timer`, …).
    public var resourceKind: String?
    /// The test that was running (or that owned the resource), when known.
    public var test: String?
    /// Stable identity across runs and rebuilds: derived from kind, label and symbolized frames.
    public var fingerprint: String
    /// What the policy did with it: `ignore`, `record`, `fail` or `trap`.
    public var policy: String
    /// The suppression rule that matched, when the finding was suppressed.
    public var suppressedBy: String?
    /// The stack (id into ``DiagnosticsReport/stacks``) where the resource was allocated.
    public var allocationStack: Int?
    /// The stack of the offending event.
    public var eventStack: Int?
    /// A second stack that explains the finding (for example the other thread's delivery).
    public var relatedStack: Int?
    /// The thread the offending event ran on.
    public var thread: ReportThread?
    /// The other thread involved (concurrent delivery).
    public var otherThread: ReportThread?
    /// Seconds since the engine started.
    public var time: Double
    /// Kind-specific facts, for example `expected` and `actual` for a contract violation.
    public var details: [String: String]
    /// For a leaked subscription: why it is still alive (the retain cycle it belongs to, or
    /// what it holds), when the engine could walk it.
    public var retainPath: ReportRetainPath?
    /// For a leak that folds a chain: its stages, upstream first, each with its label, stack
    /// and former fingerprint (schema version 3; `nil` in older reports and for a leak of one
    /// stage). See ``ReportChainStage``.
    public var chain: [ReportChainStage]?

    /// Creates a finding.
    public init(
        id: Int, kind: String, severity: ReportSeverity, message: String, label: String? = nil,
        resourceKind: String? = nil, test: String? = nil, fingerprint: String, policy: String,
        suppressedBy: String? = nil, allocationStack: Int? = nil, eventStack: Int? = nil,
        relatedStack: Int? = nil, thread: ReportThread? = nil, otherThread: ReportThread? = nil,
        time: Double = 0, details: [String: String] = [:], retainPath: ReportRetainPath? = nil,
        chain: [ReportChainStage]? = nil
    ) {
        self.id = id
        self.kind = kind
        self.severity = severity
        self.message = message
        self.label = label
        self.resourceKind = resourceKind
        self.test = test
        self.fingerprint = fingerprint
        self.policy = policy
        self.suppressedBy = suppressedBy
        self.allocationStack = allocationStack
        self.eventStack = eventStack
        self.relatedStack = relatedStack
        self.thread = thread
        self.otherThread = otherThread
        self.time = time
        self.details = details
        self.retainPath = retainPath
        self.chain = chain
    }
}

/// The severity of a finding.
///
/// ```swift
/// let serious = report.findings.filter { $0.severity >= .warning }
/// ```
public enum ReportSeverity: String, Codable, Sendable, Equatable, Comparable, CaseIterable {
    /// Informational: legal behaviour worth knowing (values still in flight after cancel).
    case info
    /// Suspicious but not necessarily wrong (re-entrant delivery, request after termination).
    case warning
    /// A bug: a leak, a grammar or contract violation, work on the wrong thread.
    case error

    private var rank: Int {
        switch self {
        case .info: return 0
        case .warning: return 1
        case .error: return 2
        }
    }

    /// Orders severities by weight: `info` < `warning` < `error`.
    public static func < (lhs: ReportSeverity, rhs: ReportSeverity) -> Bool {
        lhs.rank < rhs.rank
    }
}

/// A thread as recorded with a finding.
///
/// ```swift
/// if let thread = finding.thread, !thread.isMainQueue {
///     print("delivered on thread \(thread.id) \(thread.name ?? "")")
/// }
/// ```
public struct ReportThread: Codable, Sendable, Equatable {
    /// The kernel thread id.
    public var id: UInt64
    /// The thread's name in full, when it has one.
    public var name: String?
    /// The dispatch queue the work ran on, when it was one the app made (schema version 2).
    public var queue: String?
    /// Whether the work ran on the main queue (not merely the main thread).
    public var isMainQueue: Bool

    /// Creates a thread record.
    public init(id: UInt64, name: String? = nil, queue: String? = nil, isMainQueue: Bool) {
        self.id = id
        self.name = name
        self.queue = queue
        self.isMainQueue = isMainQueue
    }
}
