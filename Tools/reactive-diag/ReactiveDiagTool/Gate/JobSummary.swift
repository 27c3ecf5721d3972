import Foundation
import ReactiveDiagnosticsReport

/// The gate's verdict as a GitHub Actions job summary: a heading and a Markdown table of the
/// new findings (severity, kind, label, where, tests), appended to the file
/// `$GITHUB_STEP_SUMMARY` names, which GitHub shows on the run's page.
///
/// ```text
/// ### reactive-diag gate: FAIL — 2 new findings (2 fingerprints)
///
/// | severity | kind | label | where | tests | count |
/// |---|---|---|---|---|---|
/// | error | leakedSubscription | `refresh` | `Sources/App/FeedViewModel.swift:32` | FeedTests.testRefresh() | 1 |
/// ```
enum JobSummary {
    /// The environment variable GitHub Actions sets to the summary file of the current step.
    static let environmentKey = "GITHUB_STEP_SUMMARY"
    /// How many rows the table lists before summarizing the rest.
    static let rowLimit = 100

    /// The Markdown text.
    static func markdown(for facts: inout GateFacts) -> String {
        let gate = facts.evaluation
        let verdict = gate.failed ? "FAIL" : "PASS"
        let against = gate.hasBaseline ? " beyond the baseline" : ""
        var lines = [
            "### reactive-diag gate: \(verdict) — "
                + "\(Formatting.count(gate.newFindings.count, "new finding")) "
                + "(\(Formatting.count(gate.newGroups.count, "fingerprint")))\(against)", "",
        ]
        if !gate.newGroups.isEmpty {
            lines.append("| severity | kind | label | where | tests | count |")
            lines.append("|---|---|---|---|---|---|")
            for group in gate.newGroups.prefix(rowLimit) {
                let finding = group.representative
                var place = ""
                if let frame = facts.sourceFrame(of: finding), let file = frame.file, let line = frame.line {
                    place = code("\(facts.paths.display(file)):\(line)")
                } else if let frame = facts.place(of: finding)?.frame {
                    place = cell(frame.name)
                }
                lines.append(
                    "| \(group.severity.rawValue) | \(group.kind) | \(finding.label.map(code) ?? "") | \(place) | "
                        + "\(cell(Formatting.list(group.tests, limit: 3))) | \(group.count) |")
            }
            let explained = gate.newGroups.prefix(rowLimit).compactMap { group in
                GateExplanation(group.representative).map { (group, $0) }
            }
            if !explained.isEmpty {
                lines.append("")
                lines.append("**Why they are alive, and the fix:**")
                lines.append("")
                for (group, explanation) in explained {
                    let place = explanation.changeLocation(paths: facts.paths).map { " at " + code($0) } ?? ""
                    lines.append(
                        "- \(group.kind) \(group.representative.label.map(code) ?? "")\(place): "
                            + cell(explanation.why) + (explanation.fix.map { " — **fix:** " + cell($0) } ?? ""))
                }
            }
            if gate.newGroups.count > rowLimit {
                lines.append("")
                lines.append(
                    "… \(Formatting.count(gate.newGroups.count - rowLimit, "more fingerprint")) in the SARIF and JUnit reports."
                )
            }
        }
        if gate.liveExceeded {
            lines.append("")
            lines.append("**Live resources at the end:** " + cell(facts.liveMessage))
        }
        return lines.joined(separator: "\n") + "\n\n"
    }

    /// Appends the summary to the file `environment` names, when it names one.
    static func append(for facts: inout GateFacts, environment: [String: String]) throws {
        guard let path = environment[environmentKey], !path.isEmpty else { return }
        let text = markdown(for: &facts)
        do {
            if !FileManager.default.fileExists(atPath: path) {
                _ = FileManager.default.createFile(atPath: path, contents: nil)
            }
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(text.utf8))
        } catch {
            throw ToolError.cannotWrite(path, error)
        }
    }

    /// Text safe in a table cell: no line breaks, `|` escaped.
    private static func cell(_ text: String) -> String {
        text.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "|", with: "\\|")
    }

    /// Text as inline code in a cell.
    private static func code(_ text: String) -> String {
        "`" + cell(text).replacingOccurrences(of: "`", with: "'") + "`"
    }
}
