/// Crash journals (`*.journal.jsonl`): what a test process that died left instead of a report.
///
/// The engine appends every finding to a journal next to its report as it happens and removes
/// the journal once the report is written. A journal found among the inputs therefore holds
/// findings no report has: the tool rebuilds a `partial` report from it
/// (`DiagnosticsReport.rebuild(fromJournal:source:)`), which joins the other inputs, and so
/// the merge, like any report. A journal that sits beside a report of the same process holds
/// the findings made after that report was written; both are read.
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
}
