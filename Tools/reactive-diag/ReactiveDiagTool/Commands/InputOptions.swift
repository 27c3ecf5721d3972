package import ArgumentParser
package import ReactiveDiagnosticsReport

/// The reports a command reads: files or directories, and the size limit.
package struct InputOptions: ParsableArguments {
    package init() {}

    @Argument(
        help: ArgumentHelp(
            "Report files, or directories (every *.json report in them, sorted by name). Several are merged.",
            valueName: "report"))
    package var reports: [String]

    @Option(
        name: .customLong("max-input-mb"),
        help: ArgumentHelp(
            "Refuse report files larger than this many MiB.", valueName: "MiB"))
    package var maxInputMB = 1024

    package func validate() throws {
        guard maxInputMB > 0 else {
            throw ValidationError("--max-input-mb must be positive, not \(maxInputMB).")
        }
    }

    /// The limit in bytes.
    package var maxBytes: Int {
        ReportInputs.bytes(mebibytes: maxInputMB)
    }

    /// Reads and, when there are several, merges the reports.
    ///
    /// - Returns: The report and the paths read.
    /// - Throws: ``ToolError`` for the first unusable input.
    package func load(in context: ToolContext) throws -> (report: DiagnosticsReport, inputs: [String]) {
        try ReportInputs.load(reports, maxBytes: maxBytes, in: context)
    }
}

/// `--kind`, `--test`, `--label`, `--severity`, `--include-suppressed`.
struct FilterOptions: ParsableArguments {
    @Option(
        name: .customLong("kind"),
        help: ArgumentHelp(
            "Show only findings of these kinds (repeatable, or comma-separated).", valueName: "kind"))
    var kinds: [String] = []

    @Option(
        name: .customLong("test"),
        help: ArgumentHelp(
            "Show only findings of tests whose name contains this text (repeatable).", valueName: "text"))
    var tests: [String] = []

    @Option(
        name: .customLong("label"),
        help: ArgumentHelp(
            "Show only findings whose label contains this text (repeatable).", valueName: "text"))
    var labels: [String] = []

    @Option(name: .customLong("severity"), help: "Show only findings at least this severe.")
    var severity: SeverityArgument = .info

    @Flag(name: .customLong("include-suppressed"), help: "Show suppressed findings too.")
    var includeSuppressed = false

    /// The filter these options describe.
    var filter: FindingFilter {
        FindingFilter(
            kinds: Set(kinds.flatMap { $0.split(separator: ",").map(String.init) }.filter { !$0.isEmpty }),
            tests: tests, labels: labels, minimumSeverity: severity.severity, includeSuppressed: includeSuppressed)
    }
}

/// A severity on the command line.
enum SeverityArgument: String, CaseIterable, ExpressibleByArgument {
    case info, warning, error

    /// The report's severity.
    var severity: ReportSeverity {
        switch self {
        case .info: return .info
        case .warning: return .warning
        case .error: return .error
        }
    }
}

extension ColorChoice: ExpressibleByArgument {}
