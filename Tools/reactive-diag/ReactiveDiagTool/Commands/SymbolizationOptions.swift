import ArgumentParser
import Foundation
import ReactiveDiagnosticsReport
import ReactiveDiagnosticsSymbolication

/// How `show` and `html` fill in the file:line a report lacks (one written without a
/// symbolizer, or rebuilt from a crash journal): through llvm-symbolizer when it is on PATH.
/// Frames that already carry their line are used as the report holds them.
struct SymbolizationOptions: ParsableArguments {
    @Flag(name: .customLong("no-symbolize"), help: "Do not run llvm-symbolizer, even when it is on PATH.")
    var noSymbolize = false

    @Option(
        name: .customLong("symbolizer"),
        help: ArgumentHelp(
            "The llvm-symbolizer to run (default: the one on PATH).", valueName: "path"))
    var symbolizer: String?

    @Option(
        name: .customLong("symbolizer-timeout"),
        help: ArgumentHelp(
            "Seconds llvm-symbolizer may take per binary.", valueName: "seconds"))
    var timeout: Double = 30

    func validate() throws {
        guard timeout > 0 else { throw ValidationError("--symbolizer-timeout must be positive.") }
    }

    /// The llvm-symbolizer to use: `--symbolizer`, else the one on PATH, else `nil`.
    ///
    /// - Throws: ``ToolError`` when `--symbolizer` names no executable.
    func locate(in context: ToolContext) throws -> URL? {
        try Self.locate(explicit: symbolizer, in: context)
    }

    /// `explicit` when given (it must be executable), else llvm-symbolizer on PATH, else `nil`.
    static func locate(explicit symbolizer: String?, in context: ToolContext) throws -> URL? {
        if let symbolizer {
            let url = context.url(for: symbolizer)
            guard FileManager.default.isExecutableFile(atPath: url.path) else {
                throw ToolError("\(symbolizer): not an executable llvm-symbolizer")
            }
            return url
        }
        return SymbolizerLocator.onPath("llvm-symbolizer", environment: context.environment)
    }

    /// Resolves file:line for the frames of `stacks` when a symbolizer is available;
    /// prints a note for every binary that could not be used.
    func resolve(_ report: DiagnosticsReport, stacks: Set<Int>, in context: ToolContext) throws -> DiagnosticsReport {
        guard !noSymbolize, !stacks.isEmpty, let url = try locate(in: context) else { return report }
        var report = report
        let resolver = SourceLineResolver(symbolizer: url, timeout: timeout)
        let fill = report.fillSourceLines(with: resolver, stacks: stacks, verifyBuildIDs: true)
        fill.notes.forEach(context.note)
        if fill.resolvedFrames > 0, report.sourceLines != nil {
            report.recordSourceLines(resolver: resolver, fill: fill)
        }
        return report
    }
}

extension DiagnosticsReport {
    /// The stacks that `filter`'s findings and the live sites refer to.
    func referencedStacks(filter: FindingFilter) -> Set<Int> {
        var ids: Set<Int> = []
        for finding in findings where filter.matches(finding) {
            ids.formUnion(finding.stackIDs)
        }
        for site in ledger.liveAtEnd {
            if let id = site.stack { ids.insert(id) }
        }
        return ids
    }
}
