import ReactiveDiagnosticsReport

/// The gate's human verdict on standard error: PASS or FAIL, what is new (grouped), how
/// much matched the baseline, what the baseline has that the run no longer shows.
///
/// ```
/// reactive-diag gate: FAIL: 2 new findings (1 fingerprint) beyond the baseline (--fail-on error)
///   new:
///     ERROR leakedSubscription ×2 "cart.refresh" at CartViewModel.bind() [3fa2c9d1e0b4a7f8]
///           A subscription labelled "cart.refresh" is still alive at the end of its test: …
///           tests: CartTests.testRefresh(), CartTests.testReload()
///   baseline: 1 finding matches it (1 fingerprint); 0 entries fixed since
/// ```
struct GateVerdict {
    /// The evaluation to describe.
    let evaluation: GateEvaluation
    /// Stacks of the report, for the one-line locations.
    var stacks: StackTable
    /// Colours, or none.
    let style: TerminalStyle
    /// How many new groups and fixed entries to list before summarizing the rest.
    var listLimit = 50

    /// The verdict's lines.
    mutating func lines() -> [String] {
        let gate = evaluation
        var lines: [String] = []
        let policy = "(--fail-on \(gate.policy))"
        let against = gate.hasBaseline ? "beyond the baseline" : "(no baseline)"
        if gate.newFindings.isEmpty {
            lines.append(
                "reactive-diag gate: " + (gate.failed ? style.severity(.error, "FAIL") : style.bold("PASS"))
                    + ": no new findings \(against) \(policy)")
        } else {
            lines.append(
                "reactive-diag gate: " + style.severity(.error, "FAIL") + ": "
                    + "\(Formatting.count(gate.newFindings.count, "new finding")) "
                    + "(\(Formatting.count(gate.newGroups.count, "fingerprint"))) \(against) \(policy)")
            lines.append("  new:")
            for group in gate.newGroups.prefix(listLimit) {
                lines += groupLines(group)
            }
            if gate.newGroups.count > listLimit {
                lines.append("    … \(Formatting.count(gate.newGroups.count - listLimit, "more fingerprint"))")
            }
        }
        if gate.hasBaseline {
            lines.append(
                "  baseline: \(Formatting.count(gate.matchedFindings, "finding")) "
                    + "\(gate.matchedFindings == 1 ? "matches" : "match") it "
                    + "(\(Formatting.count(gate.matchedFingerprints, "fingerprint"))); "
                    + "\(Formatting.count(gate.fixedEntries.count, "entry", "entries")) fixed since"
                    + (gate.fixedEntries.isEmpty
                        ? "" : " (not seen in this run; drop them by regenerating the baseline):"))
            for entry in gate.fixedEntries.prefix(listLimit) {
                lines.append("    " + TerminalText.sanitize("\(entry.fingerprint) \(entry.summary)"))
            }
            if gate.fixedEntries.count > listLimit {
                lines.append(
                    "    … \(Formatting.count(gate.fixedEntries.count - listLimit, "more entry", "more entries"))")
            }
        }
        let ignored = gate.ignoredNew
        if ignored.total > 0 {
            var parts: [String] = []
            if ignored.error > 0 { parts.append(Formatting.count(ignored.error, "error")) }
            if ignored.warning > 0 { parts.append(Formatting.count(ignored.warning, "warning")) }
            if ignored.info > 0 { parts.append("\(ignored.info) info") }
            lines.append("  also new, not gated by --fail-on \(gate.policy): \(parts.joined(separator: ", "))")
        }
        if gate.suppressed > 0 {
            lines.append("  suppressed: \(Formatting.count(gate.suppressed, "finding")) (never gated)")
        }
        if let maxLive = gate.maxLive {
            let text = "  live at end: \(Formatting.count(gate.liveTotal, "resource")), "
            lines.append(
                gate.liveExceeded
                    ? text + style.severity(.error, "more than --max-live \(maxLive)")
                    : text + "within --max-live \(maxLive)")
        }
        return lines
    }

    private mutating func groupLines(_ group: FindingGroup) -> [String] {
        let finding = group.representative
        var line =
            "    " + style.severity(group.severity, group.severity.rawValue.uppercased()) + " "
            + TerminalText.sanitize(group.kind) + " ×\(group.count)"
        if let label = finding.label { line += " " + TerminalText.sanitize(Formatting.quoted(label)) }
        if let focus = finding.primaryStack.flatMap({ stacks.view($0) })?.focusFrame {
            line += " at " + TerminalText.sanitize(focus.oneLine)
        }
        line += style.dim(" [\(TerminalText.sanitize(group.fingerprint))]")
        var lines = [line, "          " + TerminalText.sanitize(finding.message)]
        let tests = group.tests
        if !tests.isEmpty {
            lines.append("          tests: " + TerminalText.sanitize(Formatting.list(tests, limit: 5)))
        }
        return lines
    }
}
