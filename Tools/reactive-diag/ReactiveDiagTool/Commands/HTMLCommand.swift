import ArgumentParser

/// `reactive-diag html REPORT... -o FILE`: one self-contained HTML page.
struct HTMLCommand: ParsableCommand, ToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "html",
        abstract: "Write one self-contained HTML page (no network, no external assets) for a CI artifact.",
        discussion: """
            The page has the summary, charts (live resources by kind and allocation site, each \
            scheduler's latency histogram) and the findings grouped by fingerprint, filterable by kind, \
            severity, test, label and free text, each with its culprit's file:line (a link, and the lines \
            around it when the source file is readable here) and expandable to its stacks; a retain cycle \
            drawn as boxes and arrows with the reference the fix cuts marked, and the fix's diff under it.
            """)

    @OptionGroup var input: InputOptions
    @OptionGroup var filters: FilterOptions

    @Option(name: .shortAndLong, help: ArgumentHelp("Where to write the page.", valueName: "file"))
    var output: String

    @OptionGroup var symbolization: SymbolizationOptions

    func execute(in context: ToolContext) throws -> Int32 {
        let (loaded, inputs) = try input.load(in: context)
        let filter = filters.filter
        let report = try symbolization.resolve(loaded, stacks: loaded.referencedStacks(filter: filter), in: context)
        let view = ReportView.build(report: report, inputs: inputs, filter: filter)
            .withSourceExcerpts(currentDirectory: context.currentDirectory)
            .withRetainGraphsAndFixes(report: report, fixer: ToolExtensions.current.fixer)
        try OutputFile.write(try HTMLRenderer.document(for: view), to: output, in: context)
        context.stderr.write("reactive-diag: wrote \(output) (\(Formatting.count(view.groups.count, "fingerprint")))\n")
        return ExitStatus.success
    }
}
