public import ReactiveDiagnosticsReport

/// What `show` shows, as data: the summary, the findings grouped by fingerprint, and the
/// stacks they refer to. `show --format json` prints it; `html` embeds it; the text view
/// renders it.
///
/// The format is versioned by ``formatVersion``; stacks are stored once in ``stacks`` and
/// referred to by id, so the JSON stays linear in the report's size.
///
/// ```swift
/// let view = ReportView.build(report: report, inputs: ["report.json"], filter: FindingFilter())
/// for group in view.groups { print(group.kind, group.count, group.tests) }
/// ```
public struct ReportView: Codable, Sendable, Equatable {
    /// The version of this JSON format.
    public static let currentFormatVersion = 1

    /// The version of this JSON format (``currentFormatVersion``).
    public var formatVersion: Int
    /// The tool that made the view, `reactive-diag <version>`.
    public var generator: String
    /// The report files read, in order.
    public var inputs: [String]
    /// The run the report describes.
    public var run: RunView
    /// The filters applied to the findings.
    public var filter: FilterView
    /// Totals: findings, live resources, schedulers.
    public var summary: SummaryView
    /// The findings, grouped by fingerprint, most severe first.
    public var groups: [GroupView]
    /// Every stack a group or live site refers to, by id.
    public var stacks: [StackView]
}

/// The run a view describes.
///
/// ```swift
/// print("\(view.run.processName): \(view.run.tests.count) tests in \(view.run.durationSeconds) s")
/// ```
public struct RunView: Codable, Sendable, Equatable {
    /// The process name (for a merged report, the first process's).
    public var processName: String
    /// How many processes the report covers.
    public var processCount: Int
    /// `final`, `partial` or `merged`.
    public var completeness: String
    /// Operating system and architecture.
    public var platform: String
    /// The Swift toolchain of the library.
    public var toolchain: String
    /// When the run started (ISO 8601).
    public var startTime: String
    /// When the report was written (ISO 8601).
    public var endTime: String
    /// Seconds between the two.
    public var durationSeconds: Double
    /// The tests that ran under diagnostics.
    public var tests: [TestRecord]
    /// Findings the engine did not keep because its limit was reached.
    public var droppedFindings: Int
    /// Whether the frames carry source lines, and why not (absent in a version 1 report).
    public var sourceLines: SourceLineStatus?
}

/// The filters a view applied.
///
/// ```swift
/// if !view.filter.kinds.isEmpty { print("only", view.filter.kinds.joined(separator: ", ")) }
/// ```
public struct FilterView: Codable, Sendable, Equatable {
    /// Kinds kept (empty: all).
    public var kinds: [String]
    /// Test-name substrings (empty: all).
    public var tests: [String]
    /// Label substrings (empty: all).
    public var labels: [String]
    /// The least severe findings kept.
    public var minimumSeverity: String
    /// Whether suppressed findings are shown.
    public var includeSuppressed: Bool
}

/// Findings per severity.
///
/// ```swift
/// let shown = view.summary.findings.shown
/// print(shown.error, shown.warning, shown.info, shown.total)
/// ```
public struct SeverityCounts: Codable, Sendable, Equatable {
    /// Errors.
    public var error = 0
    /// Warnings.
    public var warning = 0
    /// Informational findings.
    public var info = 0

    /// The sum.
    public var total: Int { error + warning + info }

    mutating func add(_ severity: ReportSeverity) {
        switch severity {
        case .error: error += 1
        case .warning: warning += 1
        case .info: info += 1
        }
    }
}

/// Findings of one kind, per severity.
///
/// ```swift
/// for entry in view.summary.findings.byKind { print(entry.kind, entry.counts.total) }
/// ```
public struct KindCount: Codable, Sendable, Equatable {
    /// The finding kind.
    public var kind: String
    /// Per severity.
    public var counts: SeverityCounts
}
