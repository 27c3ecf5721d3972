/// Findings sharing a fingerprint, as a view shows them.
///
/// ```swift
/// for group in view.groups where group.severity == "error" {
///     print(group.kind, "×\(group.count)", group.location ?? "", group.tests)
/// }
/// ```
public struct GroupView: Codable, Sendable, Equatable {
    /// The shared fingerprint.
    public var fingerprint: String
    /// The finding kind.
    public var kind: String
    /// The most severe of the findings' severities.
    public var severity: String
    /// How many findings.
    public var count: Int
    /// The message of the representative finding (the first of the most severe).
    public var message: String
    /// The labels, sorted.
    public var labels: [String]
    /// The tests the findings came from, sorted.
    public var tests: [String]
    /// The resource kind, for lifetime findings.
    public var resourceKind: String?
    /// The suppression rule, when the representative finding is suppressed.
    public var suppressedBy: String?
    /// The ids of the findings in the report, ascending.
    public var findingIDs: [Int]
    /// Kind-specific facts of the representative finding.
    public var details: [String: String]
    /// Where it happened in one line (`function at file:line`), when a stack says.
    public var location: String?
    /// The representative finding's stacks: allocation, event, related.
    public var stacks: [StackReference]
    /// For a leaked subscription: why it is still alive, when the engine could tell.
    public var retainPath: RetainPathView?
}

/// Why a leaked subscription is alive, as a view shows it: the report's structured retain
/// path rendered once, by the report module's renderer that test failures use too.
///
/// ```swift
/// if let path = group.retainPath, path.verdict == "cycle" { print(path.lines.joined(separator: "\n")) }
/// ```
public struct RetainPathView: Codable, Sendable, Equatable {
    /// `cycle`, `notACycle` or `unknown`.
    public var verdict: String
    /// One line: the owner, its property and the capturing closure.
    public var summary: String
    /// The whole path, one line per hop.
    public var lines: [String]
}

/// A group's reference to a stack, with the role it plays.
///
/// ```swift
/// for reference in group.stacks {
///     print(reference.role, view.stacks.first { $0.id == reference.stack }?.frames.count ?? 0)
/// }
/// ```
public struct StackReference: Codable, Sendable, Equatable {
    /// `allocation`, `event` or `related`.
    public var role: String
    /// The id into ``ReportView/stacks``.
    public var stack: Int
    /// The thread the stack ran on, for event and related stacks.
    public var thread: ThreadView?
}

/// A thread as a view shows it.
///
/// ```swift
/// if let thread = reference.thread, !thread.isMainQueue { print("off the main queue on", thread.id) }
/// ```
public struct ThreadView: Codable, Sendable, Equatable {
    /// The kernel thread id.
    public var id: UInt64
    /// The thread's name.
    public var name: String?
    /// Whether it was the main queue.
    public var isMainQueue: Bool

    /// `thread 1234 "worker", main queue`.
    var text: String {
        var parts = "thread \(id)"
        if let name, !name.isEmpty { parts += " \"\(name)\"" }
        if isMainQueue { parts += ", main queue" }
        return parts
    }
}
