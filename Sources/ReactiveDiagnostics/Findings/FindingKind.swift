import ReactiveDiagnosticsReport

/// The severity of a finding: `error`, `warning` or `info`.
public typealias Severity = ReportSeverity

/// What a finding is about. The raw value is what reports, baselines and `--fail-on` use.
///
/// ```swift
/// let kind = FindingKind(rawValue: "valueAfterTermination")
/// assert(kind == .valueAfterTermination && kind.defaultSeverity == .error)
/// ```
public struct FindingKind: RawRepresentable, Hashable, Sendable, CustomStringConvertible, Comparable {
    /// The stable name, for example `leakedSubscription`.
    public let rawValue: String

    /// Wraps a name; unknown names are allowed (adapters may add kinds).
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The kind's name, as reports, suppressions and `allowing:` lists spell it
    /// (`leakedSubscription`).
    public var description: String { rawValue }

    /// Orders kinds by name, so that reports and summaries list them in a stable order.
    public static func < (lhs: FindingKind, rhs: FindingKind) -> Bool { lhs.rawValue < rhs.rawValue }

    // MARK: Stream grammar: next* (completed | error)

    /// A value arrived after the stream had finished or failed.
    public static let valueAfterTermination = FindingKind(rawValue: "valueAfterTermination")
    /// A second finished/failure event arrived.
    public static let duplicateTermination = FindingKind(rawValue: "duplicateTermination")
    /// A value or completion arrived before the subscription (Reactive Streams 1.9).
    public static let eventBeforeSubscription = FindingKind(rawValue: "eventBeforeSubscription")
    /// A subscriber received a second subscription (Reactive Streams 2.5).
    public static let duplicateSubscription = FindingKind(rawValue: "duplicateSubscription")
    /// More values arrived than were requested (Reactive Streams 1.1).
    public static let demandExceeded = FindingKind(rawValue: "demandExceeded")
    /// A request of zero or fewer values (Reactive Streams 3.9).
    public static let invalidDemand = FindingKind(rawValue: "invalidDemand")
    /// Two threads delivered signals to one subscriber at once (Reactive Streams 1.3).
    public static let concurrentDelivery = FindingKind(rawValue: "concurrentDelivery")
    /// A delivery started while another delivery to the same subscriber was running on the
    /// same thread (RxSwift's "reentrancy anomaly").
    public static let reentrantDelivery = FindingKind(rawValue: "reentrantDelivery")
    /// Demand was requested after the stream terminated.
    public static let requestAfterTermination = FindingKind(rawValue: "requestAfterTermination")
    /// A value arrived after cancel: legal while in flight (Reactive Streams 1.8), reported for information.
    public static let valueAfterCancel = FindingKind(rawValue: "valueAfterCancel")
    /// Two tasks iterated one single-consumer async sequence (an `AsyncStream`) at once: each
    /// element goes to one of them, and a waiting one may never resume.
    public static let concurrentIteration = FindingKind(rawValue: "concurrentIteration")

    // MARK: Contracts and threads

    /// A declared stream contract was broken (value count, termination, failure).
    public static let contractViolation = FindingKind(rawValue: "contractViolation")
    /// A value, action or callback ran on a thread its expectation rules out.
    public static let wrongThread = FindingKind(rawValue: "wrongThread")

    // MARK: Lifetime

    /// A subscription still alive at the end of its test: never completed, failed or cancelled.
    public static let leakedSubscription = FindingKind(rawValue: "leakedSubscription")
    /// A tracked resource of another kind still alive at the end of its test.
    public static let leakedResource = FindingKind(rawValue: "leakedResource")
    /// A stream cancelled by the release of its cancellable before it produced anything.
    public static let prematureCancellation = FindingKind(rawValue: "prematureCancellation")
    /// A repeating timer or periodic action still active at the end of its test.
    public static let uncancelledTimer = FindingKind(rawValue: "uncancelledTimer")
    /// Scheduled work still pending at the end of its test.
    public static let pendingAction = FindingKind(rawValue: "pendingAction")
    /// An effect's callback was never called.
    public static let callbackNeverCalled = FindingKind(rawValue: "callbackNeverCalled")
    /// A one-shot callback was called more than once.
    public static let callbackCalledTwice = FindingKind(rawValue: "callbackCalledTwice")
    /// A notification observer still registered at the end of its test.
    public static let observerNotRemoved = FindingKind(rawValue: "observerNotRemoved")

    // MARK: Schedulers

    /// A scheduled action ran longer than the threshold, blocking its queue.
    public static let longAction = FindingKind(rawValue: "longAction")

    /// Every kind this library's engine defines, in a stable order (the `FindingCatalog`'s
    /// entries that no adapter defines).
    public static let allKnown: [FindingKind] = FindingCatalog.kinds.filter { $0.definedBy == nil }
        .map { FindingKind(rawValue: $0.name) }

    /// What the catalog says about this kind, when it lists it.
    public var info: FindingKindInfo? {
        FindingCatalog.info(for: rawValue)
    }

    /// Whether the finding is about something still alive at a checkpoint.
    public var isLifetime: Bool {
        info?.isLifetime ?? false
    }

    /// The severity findings of this kind get unless configured otherwise (the catalog's;
    /// `error` for a kind it does not list).
    public var defaultSeverity: Severity {
        info?.defaultSeverity ?? .error
    }
}
