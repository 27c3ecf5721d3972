package import ArgumentParser
package import ReactiveDiagnosticsReport

/// One replacement in a source file: the text from (`startLine`, `startColumn`) up to
/// (`endLine`, `endColumn`) becomes `insertedText`. Lines and columns are 1-based, columns in
/// Unicode code points (the `columnKind` of the gate's SARIF), the end exclusive; an insertion has start == end.
package struct SourceReplacement: Sendable, Hashable {
    package var startLine: Int
    package var startColumn: Int
    package var endLine: Int
    package var endColumn: Int
    package var insertedText: String

    package init(startLine: Int, startColumn: Int, endLine: Int, endColumn: Int, insertedText: String) {
        self.startLine = startLine
        self.startColumn = startColumn
        self.endLine = endLine
        self.endColumn = endColumn
        self.insertedText = insertedText
    }
}

/// The edits of one finding's fix in one file, and the unified diff they make.
package struct SourceFileFix: Sendable, Hashable {
    /// The file, as the report names it (absolute).
    package var file: String
    /// The edits, in file order, none overlapping.
    package var replacements: [SourceReplacement]
    /// `--- a/…`, `+++ b/…` and its hunks.
    package var diff: String

    package init(file: String, replacements: [SourceReplacement], diff: String) {
        self.file = file
        self.replacements = replacements
        self.diff = diff
    }
}

/// What `reactive-diag fix` can do about one finding.
package enum FindingFixOutcome: Sendable, Hashable {
    /// A mechanical fix: what it does in words, and its edits.
    case fix(description: String, files: [SourceFileFix])
    /// The source already has the fix.
    case alreadyFixed(String)
    /// No mechanical fix, and why.
    case noFix(String)
    /// A fix was possible but is refused (the line changed, an edit would not parse…), and why.
    case refused(String)

    /// The fix's edits, when there is one.
    package var files: [SourceFileFix] {
        if case .fix(_, let files) = self { return files }
        return []
    }

    /// One line for a header, a SARIF fix's description or the HTML page.
    package var sentence: String {
        switch self {
        case .fix(let description, _): return "fix: " + description
        case .alreadyFixed(let reason): return "already fixed: " + reason
        case .noFix(let reason): return "no mechanical fix: " + reason
        case .refused(let reason): return "refused: " + reason
        }
    }
}

/// Computes fixes for findings. `ReactiveDiagTool` has none of its own (it does not depend on
/// swift-syntax); the `reactive-diag` executable registers the one of `ReactiveDiagFix` through
/// ``ReactiveDiag/run(arguments:stdout:stderr:environment:currentDirectory:extensions:)``, and
/// the gate's SARIF and the HTML page then carry the fixes.
package protocol FindingFixing: Sendable {
    /// The outcome for each of `findings` (same order), reading the sources the report names.
    func outcomes(for findings: [ReportFinding], in report: DiagnosticsReport) -> [FindingFixOutcome]
}

/// What an executable adds to the tool: more subcommands, and a fixer for the outputs that
/// show fixes (SARIF `fixes`, the HTML page).
package struct ToolExtensions: Sendable {
    package var subcommands: [any ParsableCommand.Type]
    package var fixer: (any FindingFixing)?

    package init(subcommands: [any ParsableCommand.Type] = [], fixer: (any FindingFixing)? = nil) {
        self.subcommands = subcommands
        self.fixer = fixer
    }

    /// The extensions of the command running now (bound by `ReactiveDiag.run`).
    @TaskLocal package static var current = ToolExtensions()
}
