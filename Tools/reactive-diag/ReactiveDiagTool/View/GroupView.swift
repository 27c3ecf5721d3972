import ReactiveDiagnosticsReport

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
    /// The frame the finding is placed at (`FindingPlacement`): its culprit.
    public var culprit: FrameReference?
    /// The culprit's source line and the lines around it (the HTML page reads them from the file).
    public var source: SourceExcerpt?
    /// The representative finding's stacks: allocation, event, related.
    public var stacks: [StackReference]
    /// For a leaked subscription: why it is still alive, when the engine could tell.
    public var retainPath: RetainPathView?
    /// For a leak that folds a chain: a heading and one line per stage, upstream first, each
    /// where the user's code made it and the stage that keeps the chain alive marked
    /// (`FindingText.chainLines`); `nil` for a finding of one stage.
    public var chain: [String]? = nil
    /// The mechanical fix or why there is none (the HTML page, when `reactive-diag fix` is there).
    public var fix: Fix?
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
    /// The cycle as boxes and arrows (the HTML page).
    public var graph: Graph?
}

/// A frame of a view's stack.
///
/// ```swift
/// if let culprit = group.culprit, let stack = view.stack(culprit.stack) { print(stack.frames[culprit.frame].name) }
/// ```
public struct FrameReference: Codable, Sendable, Equatable {
    /// The id into ``ReportView/stacks``.
    public var stack: Int
    /// The frame's index in that stack.
    public var frame: Int
}

/// A source line and the lines around it.
///
/// ```swift
/// if let source = group.source { print("\(source.path):\(source.line)", source.lines.joined(separator: "\n")) }
/// ```
public struct SourceExcerpt: Codable, Sendable, Equatable {
    /// The file as the report names it (absolute).
    public var file: String
    /// The file as people read it: relative to the working directory when it is under it.
    public var path: String
    /// The line, from 1.
    public var line: Int
    /// The column, when known.
    public var column: Int?
    /// The number of the first of ``lines``.
    public var firstLine: Int
    /// The lines around ``line``; empty when the file could not be read.
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
    /// How the presentation introduces the stack: `allocated at`, `event at (thread …)`,
    /// `stream created at` (`FindingText/stackHeading(_:of:)`).
    public var heading: String
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
    /// The dispatch queue the work ran on, when it was one the app made.
    public var queue: String?
    /// Whether it was the main queue.
    public var isMainQueue: Bool

    /// The thread as the report has it.
    var reportThread: ReportThread {
        ReportThread(id: id, name: name, queue: queue, isMainQueue: isMainQueue)
    }

    /// `thread 1234 "worker", main queue` (`FindingText/thread(_:)`).
    var text: String {
        FindingText.thread(reportThread)
    }
}
