/// The extension point for crash journals (`*.journal.jsonl`).
///
/// A test process that crashes leaves a journal instead of a report; a later issue defines
/// its format and the engine's reader that rebuilds a `partial` report from it. Until then
/// the tool recognises journals in report directories, leaves them out of the inputs and
/// says so (one note per command). When the reader exists, ``recover(_:in:)`` turns each
/// journal into a report that joins the inputs (and so the merge) like any other.
enum CrashJournals {
    /// The file-name suffix of a crash journal.
    static let suffix = ".journal.jsonl"

    /// Whether a directory entry is a crash journal.
    static func isJournal(_ name: String) -> Bool {
        name.hasSuffix(suffix)
    }

    /// Reports rebuilt from journals. Today: none, with a note naming what was skipped.
    static func recover(_ journals: [ReportInputs.File], in context: ToolContext) {
        guard let first = journals.first else { return }
        let others = journals.count > 1 ? " and \(journals.count - 1) more" : ""
        context.note(
            "\(first.displayPath)\(others): crash journals are not read by this version; "
                + "the findings they hold are not in this view")
    }
}
