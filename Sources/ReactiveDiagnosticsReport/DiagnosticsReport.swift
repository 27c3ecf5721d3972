import Foundation

/// A ReactiveDiagnostics report: everything one test process found, as written to disk.
///
/// Reports are versioned JSON documents (see ``schemaVersion``). The engine writes one when
/// a test run ends; the `reactive-diag` tool reads, merges and gates them. The JSON Schema
/// lives in `Docs/report.schema.json`.
///
/// ```swift
/// let report = try DiagnosticsReport.load(from: URL(fileURLWithPath: "report.json"))
/// for finding in report.findings where finding.severity == .error {
///     print(finding.kind, finding.label ?? "-", finding.test ?? "-")
/// }
/// ```
public struct DiagnosticsReport: Codable, Sendable, Equatable {
    /// The schema version this module writes.
    public static let currentSchemaVersion = 3
    /// The schema versions this module reads: 1 (no ``sourceLines``) and 2.
    public static let readableSchemaVersions = 1...currentSchemaVersion

    /// The version of the report format; readers reject versions they do not know.
    public var schemaVersion: Int
    /// The program that wrote the report.
    public var tool: ToolInfo
    /// The process the findings came from (for a merged report: the first of them).
    public var run: RunInfo
    /// Every finding, suppressed ones included (see ``ReportFinding/suppressedBy``).
    public var findings: [ReportFinding]
    /// Live-resource bookkeeping: totals, peaks and what was still alive at the end.
    public var ledger: LedgerSummary
    /// Statistics of every diagnostic scheduler.
    public var schedulers: [SchedulerSummary]
    /// The interned stacks findings and live sites refer to, symbolized.
    public var stacks: [ReportStack]
    /// The binary images the stacks' frames belong to.
    public var images: [ReportImage]
    /// Findings not kept because the in-memory limit was reached (0 normally).
    public var droppedFindings: Int
    /// Whether the frames carry source lines, and why not when they do not (`nil` in a
    /// version 1 report, which did not say).
    public var sourceLines: SourceLineStatus?

    /// Creates a report.
    public init(
        schemaVersion: Int = DiagnosticsReport.currentSchemaVersion,
        tool: ToolInfo = ToolInfo(),
        run: RunInfo,
        findings: [ReportFinding] = [],
        ledger: LedgerSummary = LedgerSummary(),
        schedulers: [SchedulerSummary] = [],
        stacks: [ReportStack] = [],
        images: [ReportImage] = [],
        droppedFindings: Int = 0,
        sourceLines: SourceLineStatus? = nil
    ) {
        self.schemaVersion = schemaVersion
        self.tool = tool
        self.run = run
        self.findings = findings
        self.ledger = ledger
        self.schedulers = schedulers
        self.stacks = stacks
        self.images = images
        self.droppedFindings = droppedFindings
        self.sourceLines = sourceLines
    }
}

/// The program that wrote a report.
///
/// ```swift
/// let report = try DiagnosticsReport.load(from: URL(fileURLWithPath: "report.json"))
/// print("\(report.tool.name) \(report.tool.version)")   // ReactiveDiagnostics 0.1.0
/// ```
public struct ToolInfo: Codable, Sendable, Equatable {
    /// The library's name, `ReactiveDiagnostics`.
    public var name: String
    /// The library's version.
    public var version: String

    /// Creates tool information; defaults describe this library.
    public init(name: String = "ReactiveDiagnostics", version: String = ReportFormat.libraryVersion) {
        self.name = name
        self.version = version
    }
}

/// Constants of the report format.
///
/// ```swift
/// let tool = ToolInfo(version: ReportFormat.libraryVersion)
/// ```
public enum ReportFormat {
    /// The version of ReactiveDiagnostics that writes reports.
    public static let libraryVersion = "0.1.0"
}
