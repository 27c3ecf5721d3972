import ArgumentParser
import Foundation
import ReactiveDiagnosticsReport

/// `reactive-diag merge REPORT... -o FILE`: one report from many.
struct MergeCommand: ParsableCommand, ToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge the reports of parallel processes or CI shards into one report.",
        discussion: """
            Stacks and images are de-duplicated, findings renumbered in input order, ledger totals, \
            live sites and scheduler statistics summed (histograms bucket by bucket). The merged \
            ledger's peak is the sum of the peaks: an upper bound. The output is deterministic.
            """)

    @OptionGroup var input: InputOptions

    @Option(name: .shortAndLong, help: ArgumentHelp("Where to write the merged report.", valueName: "file"))
    var output: String

    @Flag(help: "Indent the JSON for people to read.")
    var pretty = false

    func execute(in context: ToolContext) throws -> Int32 {
        let resolved = try ReportInputs.resolve(input.reports, in: context)
        CrashJournals.note(resolved.journals, in: context)
        let reports = try resolved.loadAll(maxBytes: input.maxBytes, in: context)
        let merged = ReportMerger.merge(reports)
        if let problem = merged.validationProblem() {
            throw ToolError("\(output): the merged report would be invalid: \(problem)")
        }
        try OutputFile.write(try merged.encoded(prettyPrinted: pretty), to: output, in: context)
        context.stderr.write(
            "reactive-diag: merged \(Formatting.count(reports.count, "report")) "
                + "(\(Formatting.count(merged.findings.count, "finding")), \(Formatting.count(merged.stacks.count, "stack")), "
                + "\(Formatting.count(merged.run.processCount, "process", "processes"))) into \(output)\n")
        return ExitStatus.success
    }
}
