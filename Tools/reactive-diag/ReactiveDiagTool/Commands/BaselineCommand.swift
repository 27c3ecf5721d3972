import ArgumentParser
import Foundation
import ReactiveDiagnosticsReport

/// `reactive-diag baseline REPORT... -o FILE`: accept today's findings.
struct BaselineCommand: ParsableCommand, ToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "baseline",
        abstract: "Accept today's findings: write their fingerprints, each with a readable line, to a baseline file.",
        discussion: """
            Every unsuppressed finding of every severity is accepted, one entry per fingerprint, \
            sorted by kind and fingerprint. Commit the file and pass it to `gate --baseline`.
            """)

    @OptionGroup var input: InputOptions

    @Option(name: .shortAndLong, help: ArgumentHelp("Where to write the baseline.", valueName: "file"))
    var output: String

    func execute(in context: ToolContext) throws -> Int32 {
        let (report, _) = try input.load(in: context)
        let baseline = Baseline(accepting: report)
        try OutputFile.write(try baseline.encoded(), to: output, in: context)
        context.stderr.write(
            "reactive-diag: accepted \(Formatting.count(baseline.entries.count, "fingerprint")) "
                + "(\(Formatting.count(report.findings.filter(\.isActive).count, "finding"))) in \(output)\n")
        return ExitStatus.success
    }
}
