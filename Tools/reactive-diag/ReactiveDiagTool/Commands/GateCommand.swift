import ArgumentParser
import Foundation
import ReactiveDiagnosticsReport

/// `reactive-diag gate REPORT...`: the CI verdict.
struct GateCommand: ParsableCommand, ToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "gate",
        abstract: "Decide pass/fail for CI: exit 1 when there are findings beyond the baseline.",
        discussion: """
            A finding counts when it is not suppressed and --fail-on selects it; it is new when its \
            fingerprint is not in the baseline. Exit 0 when nothing is new (and --max-live holds), 1 \
            when something is, 2 when an input is unusable. The verdict goes to standard error; \
            --github-annotations prints workflow commands on standard output (each at the culprit's \
            file, line and column) and, when GITHUB_STEP_SUMMARY is set, appends a Markdown table of the \
            new findings to that file; --sarif and --junit write files. Source paths are relative to \
            --source-root. All output is in a deterministic order.
            """)

    @OptionGroup var input: InputOptions

    @Option(help: ArgumentHelp("Accepted findings (written by `reactive-diag baseline`).", valueName: "file"))
    var baseline: String?

    @Option(
        name: .customLong("fail-on"),
        help: ArgumentHelp(
            "What fails: a severity threshold (error, warning, info) and/or finding kinds, comma-separated.",
            valueName: "kinds|severity"))
    var failOn = "error"

    @Option(
        name: .customLong("max-live"),
        help: ArgumentHelp(
            "Fail when more than this many resources were alive at the end.", valueName: "n"))
    var maxLive: Int?

    @Option(help: ArgumentHelp("Write the new findings as SARIF 2.1.0 to this file.", valueName: "file"))
    var sarif: String?

    @Option(help: ArgumentHelp("Write the new findings as JUnit XML to this file.", valueName: "file"))
    var junit: String?

    @Flag(name: .customLong("github-annotations"), help: "Print GitHub Actions annotations on standard output.")
    var githubAnnotations = false

    @Option(
        name: .customLong("max-annotations"),
        help: ArgumentHelp(
            "At most this many annotations (GitHub shows few per step).", valueName: "n"))
    var maxAnnotations = 50

    @Option(
        name: .customLong("source-root"),
        help: ArgumentHelp(
            "Make source paths in SARIF, JUnit, annotations and the job summary relative to this directory (default: the working directory).",
            valueName: "dir"))
    var sourceRoot: String?

    @Option(help: "When to colour the verdict: auto (on a terminal, unless NO_COLOR is set), always, never.")
    var color: ColorChoice = .auto

    func validate() throws {
        if let maxLive, maxLive < 0 { throw ValidationError("--max-live must not be negative.") }
        guard maxAnnotations >= 0 else { throw ValidationError("--max-annotations must not be negative.") }
    }

    func execute(in context: ToolContext) throws -> Int32 {
        let policy = try FailOnPolicy(parsing: failOn)
        let (report, _) = try input.load(in: context)
        let accepted = try baseline.map { path in
            try Baseline.load(from: context.url(for: path), displayPath: path, maxBytes: input.maxBytes)
        }
        warnAboutUnknownKinds(policy, report: report, context: context)
        var stacks = StackTable(index: ReportIndex(report))
        let live = LiveView(report.ledger, stacks: &stacks)
        let evaluation = GateEvaluation(
            report: report, baseline: accepted, policy: policy, maxLive: maxLive, liveTotal: live.total)
        let root = sourceRoot.map { context.url(for: $0).path } ?? context.currentDirectory
        var facts = GateFacts(
            evaluation: evaluation, stacks: stacks, paths: SourcePaths(root: root), liveSites: live.sites)
        if sarif != nil, let fixer = ToolExtensions.current.fixer {
            let findings = evaluation.newGroups.map(\.representative)
            let outcomes = fixer.outcomes(for: findings, in: report)
            facts.fixes = Dictionary(
                zip(findings.map(\.fingerprint), outcomes).map { ($0, $1) }, uniquingKeysWith: { first, _ in first })
        }
        if let sarif {
            try OutputFile.write(try SARIFWriter.encode(SARIFWriter.log(for: &facts)), to: sarif, in: context)
        }
        if let junit {
            try OutputFile.write(JUnitWriter.document(for: &facts), to: junit, in: context)
        }
        if githubAnnotations {
            for line in GitHubAnnotations.lines(for: &facts, limit: maxAnnotations) {
                context.stdout.write(line + "\n")
            }
            try JobSummary.append(for: &facts, environment: context.environment)
        }
        let style = TerminalStyle(enabled: color.isEnabled(for: context.stderr, environment: context.environment))
        var verdict = GateVerdict(evaluation: evaluation, stacks: facts.stacks, style: style)
        for line in verdict.lines() {
            context.stderr.write(line + "\n")
        }
        return evaluation.failed ? ExitStatus.newFindings : ExitStatus.success
    }

    /// A `--fail-on` kind that the engine does not define and no finding has is probably a typo.
    private func warnAboutUnknownKinds(_ policy: FailOnPolicy, report: DiagnosticsReport, context: ToolContext) {
        let present = Set(report.findings.map(\.kind))
        for kind in policy.kinds.sorted() where !FindingCatalog.isKnown(kind) && !present.contains(kind) {
            context.note("--fail-on: '\(kind)' is not a known finding kind and no finding has it")
        }
    }
}
