import _ReactiveDiagnosticsSupport

/// The kind of a tracked live resource: subscription, scheduled action, timer, observer…
///
/// Kinds are interned to a one-byte index so the ledger stays compact; define your own with
/// ``named(_:)``.
///
/// ```swift
/// let kind = ResourceKind.named("socket")
/// assert(kind == ResourceKind.named("socket") && kind.leakFindingKind == .leakedResource)
/// ```
public struct ResourceKind: Hashable, Sendable, CustomStringConvertible {
    /// The index in the kind table.
    let index: UInt8

    private static let table = LockedValue<[String]>([
        "subscription", "subscriber", "cancellable", "scheduledAction", "timer", "callback", "observer",
        "iteration", "continuation", "task",
    ])

    /// The most kinds that can exist in one process.
    public static let maximumCount = 64

    /// A stream's subscription (alive until it terminates or is cancelled).
    public static let subscription = ResourceKind(index: 0)
    /// A subscriber or observer object.
    public static let subscriber = ResourceKind(index: 1)
    /// A cancellable or disposable.
    public static let cancellable = ResourceKind(index: 2)
    /// A one-shot scheduled action (alive until it runs or is cancelled).
    public static let scheduledAction = ResourceKind(index: 3)
    /// A repeating action or timer (alive until cancelled).
    public static let timer = ResourceKind(index: 4)
    /// An effect waiting for its callback.
    public static let callback = ResourceKind(index: 5)
    /// A notification observer (alive until removed).
    public static let observer = ResourceKind(index: 6)
    /// A consumer of an async sequence waiting for elements (alive until the sequence ends,
    /// the iteration is cancelled or its iterator released): the async form of a subscription.
    public static let iteration = ResourceKind(index: 7)
    /// A continuation waiting to be resumed.
    public static let continuation = ResourceKind(index: 8)
    /// A task still running.
    public static let task = ResourceKind(index: 9)

    init(index: UInt8) {
        self.index = index
    }

    /// The kind named `name`, created on first use.
    ///
    /// - Precondition: fewer than ``maximumCount`` kinds exist.
    public static func named(_ name: String) -> ResourceKind {
        table.withLock { names in
            if let index = names.firstIndex(of: name) {
                return ResourceKind(index: UInt8(index))
            }
            precondition(
                names.count < maximumCount, "ReactiveDiagnostics supports at most \(maximumCount) resource kinds")
            names.append(name)
            return ResourceKind(index: UInt8(names.count - 1))
        }
    }

    /// The kind's name.
    public var name: String {
        Self.table.withLock { $0[Int(index)] }
    }

    /// The kind's ``name`` (`subscription`, `timer`…).
    public var description: String { name }

    /// The finding made when a resource of this kind is still alive at its test's end.
    public var leakFindingKind: FindingKind {
        switch self {
        case .subscription, .iteration: return .leakedSubscription
        case .scheduledAction: return .pendingAction
        case .timer: return .uncancelledTimer
        case .callback, .continuation: return .callbackNeverCalled
        case .observer: return .observerNotRemoved
        default: return .leakedResource
        }
    }

    static var allNames: [String] {
        table.withLock { $0 }
    }
}

/// An interned label for streams, schedulers and resources.
///
/// Intern a label once (when building an operator) and reuse it for every subscription:
/// registering a resource then costs no string work.
///
/// ```swift
/// let label = DiagnosticLabel("refresh")
/// assert(label.name == "refresh")
/// ```
public struct DiagnosticLabel: Hashable, Sendable, CustomStringConvertible {
    private static let table = InternTable()

    /// The interned id (0 for the empty label).
    public let id: UInt32

    /// Interns `name`.
    public init(_ name: String) {
        guard !name.isEmpty else {
            id = 0
            return
        }
        let recent = RecentLabels.current()
        if let known = recent.pointee.id(for: name) {
            id = known
            return
        }
        id = Self.table.id(for: name)
        recent.pointee.remember(name, id: id)
    }

    init(id: UInt32) {
        self.id = id
    }

    /// The label text.
    public var name: String {
        Self.table.name(for: id) ?? ""
    }

    /// The label's ``name``, as findings show it.
    public var description: String { name }
}
