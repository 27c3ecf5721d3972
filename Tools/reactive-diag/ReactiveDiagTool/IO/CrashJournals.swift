import ReactiveDiagnosticsReport
import ReactiveDiagnosticsSymbolication

/// Crash journals (`*.journal.jsonl`): what a test process that died left instead of a report.
///
/// The engine appends every finding to a journal next to its report as it happens and removes
/// the journal once the report is written. A journal found among the inputs therefore holds
/// findings no report has: the tool rebuilds a `partial` report from it
/// (`DiagnosticsReport.rebuild(fromJournal:source:)`), which joins the other inputs, and so
/// the merge, like any report. A journal that sits beside a report of the same process holds
/// the findings made after that report was written; both are read.
///
/// The findings a process made just before it died can have raw stacks (the thread that made
/// a finding writes addresses only; a queue names them after the fact): the tool names them
/// from the binaries with llvm-symbolizer, and gives those findings their fingerprints.
enum CrashJournals {
    /// The file-name suffix of a crash journal.
    static let suffix = ".journal.jsonl"

    /// Whether a directory entry is a crash journal.
    static func isJournal(_ name: String) -> Bool {
        name.hasSuffix(suffix)
    }

    /// Says, once per command, that some inputs are partial.
    static func note(_ journals: [ReportInputs.File], in context: ToolContext) {
        guard let first = journals.first else { return }
        let others = journals.count > 1 ? " and \(journals.count - 1) more" : ""
        context.note(
            "\(first.displayPath)\(others): crash journal of a test process that did not finish; "
                + "its findings are included (partial: no ledger or scheduler statistics)")
    }

    /// Names the raw stacks of a journal's report (see ``DiagnosticsReport/nameRawStacks(with:classifier:)``)
    /// with llvm-symbolizer from PATH; says so when there is none, or when a binary could not be used.
    static func nameRawStacks(of report: inout DiagnosticsReport, from file: ReportInputs.File, in context: ToolContext)
    {
        // Every finding gets its fingerprint, named stacks or not.
        defer { report.fillMissingFingerprints() }
        let raw = report.rawStackIDs.count
        guard raw > 0 else { return }
        guard let symbolizer = SymbolizerLocator.onPath("llvm-symbolizer", environment: context.environment) else {
            context.note(
                "\(file.displayPath): \(Formatting.count(raw, "stack")) of the crash journal were never named, and "
                    + "llvm-symbolizer is not on PATH to name them: their frames show as addresses")
            return
        }
        let fill = report.nameRawStacks(with: SourceLineResolver(symbolizer: symbolizer))
        fill.notes.forEach { context.note("\(file.displayPath): \($0)") }
    }
}
