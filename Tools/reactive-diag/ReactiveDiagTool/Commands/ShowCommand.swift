import ArgumentParser
import Foundation

/// `reactive-diag show REPORT...`: the terminal view, or its JSON form.
struct ShowCommand: ParsableCommand, ToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show a report in the terminal: summary, then findings grouped by fingerprint with their stacks.",
        discussion: """
            The summary counts findings by kind and severity, live resources at the end by kind and \
            allocation site, and scheduler statistics. Then each group of findings sharing a fingerprint: \
            how many, from which tests, with its allocation, event and related stacks (your frames \
            highlighted, framework and runtime frames folded). File:line comes from llvm-symbolizer when \
            it is on PATH. Colour only on a terminal (--color, NO_COLOR).
            """)

    @OptionGroup var input: InputOptions
    @OptionGroup var filters: FilterOptions

    @Option(help: "Output format: text (the view) or json (the same view as data).")
    var format: ShowFormat = .text

    @Option(help: "When to colour the text view: auto (on a terminal, unless NO_COLOR is set), always, never.")
    var color: ColorChoice = .auto

    @Option(
        name: .customLong("top-sites"),
        help: ArgumentHelp(
            "How many live allocation sites the text summary lists.", valueName: "n"))
    var topSites = 10

    @OptionGroup var symbolization: SymbolizationOptions

    func validate() throws {
        guard topSites >= 0 else { throw ValidationError("--top-sites must not be negative.") }
    }

    func execute(in context: ToolContext) throws -> Int32 {
        let (loaded, inputs) = try input.load(in: context)
        let filter = filters.filter
        let report = try symbolization.resolve(loaded, stacks: loaded.referencedStacks(filter: filter), in: context)
        let view = ReportView.build(report: report, inputs: inputs, filter: filter)
        switch format {
        case .text:
            let style = TerminalStyle(enabled: color.isEnabled(for: context.stdout, environment: context.environment))
            var renderer = TextRenderer(style: style, sink: context.stdout)
            renderer.topSites = topSites
            renderer.render(view.sanitizedForTerminal())
        case .json:
            context.stdout.write(try view.jsonText() + "\n")
        }
        return ExitStatus.success
    }
}

/// `show --format`.
enum ShowFormat: String, CaseIterable, ExpressibleByArgument {
    /// The terminal view.
    case text
    /// ``ReportView`` as JSON.
    case json
}

extension ReportView {
    /// The view as pretty-printed JSON with sorted keys.
    func jsonText() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}
