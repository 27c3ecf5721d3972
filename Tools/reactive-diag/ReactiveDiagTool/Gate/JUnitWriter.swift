import ReactiveDiagnosticsReport

/// Writes the gate's new findings as JUnit XML: one `<testsuite>` with one failed
/// `<testcase>` per new finding (named by kind and label, classname the test, `file` and `line`
/// the culprit's source line, the path relative to the source root), the message in the
/// failure's `message` and the folded stacks in its body. A passing gate writes one passing
/// test case, so CI shows that the gate ran.
///
/// ```xml
/// <testsuite name="reactive-diag gate" tests="1" failures="1" errors="0" skipped="0">
///   <testcase name="leakedSubscription &quot;cart.refresh&quot;" classname="CartTests.testRefresh()"
///             file="Sources/Cart/CartViewModel.swift" line="42">
///     <failure type="leakedSubscription" message="A subscription is still alive …">…</failure>
///   </testcase>
/// </testsuite>
/// ```
enum JUnitWriter {
    /// The XML document.
    static func document(for facts: inout GateFacts) -> String {
        let gate = facts.evaluation
        var cases: [String] = []
        for finding in gate.newFindings {
            cases.append(testCase(for: finding, facts: &facts))
        }
        if gate.liveExceeded {
            cases.append(
                failedCase(
                    name: GateFacts.title(kind: SARIFWriter.liveRuleID, label: nil), className: "reactive-diag",
                    type: SARIFWriter.liveRuleID, message: facts.liveMessage,
                    escapedBody: XMLText.escape(liveBody(facts))))
        }
        let failures = cases.count
        if cases.isEmpty {
            cases.append("  <testcase name=\"no new findings beyond the baseline\" classname=\"reactive-diag\"/>")
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuite name="reactive-diag gate" tests="\(cases.count)" failures="\(failures)" errors="0" skipped="0">
            \(cases.joined(separator: "\n"))
            </testsuite>

            """
    }

    private static func testCase(for finding: ReportFinding, facts: inout GateFacts) -> String {
        var header: [String] = [finding.message]
        if let test = finding.test { header.append("test: \(test)") }
        header.append(
            "fingerprint: \(finding.fingerprint) · severity: \(finding.severity.rawValue) · finding #\(finding.id)")
        let place = facts.place(of: finding)?.frame
        if let frame = place {
            header.append("where: " + frame.oneLine)
        }
        if let explanation = GateExplanation(finding) {
            header += explanation.lines()
            if let change = explanation.changeLocation(paths: facts.paths) {
                header.append("change: " + change)
            }
        }
        var source: (file: String, line: Int)?
        if let frame = place, let file = frame.file, let line = frame.line, line > 0 {
            source = (facts.paths.display(file), line)
        }
        var body = XMLText.escape(header.joined(separator: "\n"))
        for entry in facts.stacks(of: finding) {
            body += "\n" + XMLText.escape("\(entry.heading):") + facts.escapedStack(entry.stack)
        }
        return failedCase(
            name: GateFacts.title(kind: finding.kind, label: finding.label), className: finding.test ?? "reactive-diag",
            type: finding.kind, message: finding.message, escapedBody: body, source: source)
    }

    private static func liveBody(_ facts: GateFacts) -> String {
        facts.liveSites.map { site in
            "\(site.count) × \(site.kind) \(Formatting.quoted(site.label))" + (site.location.map { " at \($0)" } ?? "")
                + (site.tests.isEmpty ? "" : " (tests: \(Formatting.list(site.tests, limit: 5)))")
        }.joined(separator: "\n")
    }

    private static func failedCase(
        name: String, className: String, type: String, message: String, escapedBody: String,
        source: (file: String, line: Int)? = nil
    ) -> String {
        let place = source.map { " file=\"\(XMLText.escape($0.file, attribute: true))\" line=\"\($0.line)\"" } ?? ""
        return
            "  <testcase name=\"\(XMLText.escape(name, attribute: true))\" classname=\"\(XMLText.escape(className, attribute: true))\"\(place)>\n"
            + "    <failure type=\"\(XMLText.escape(type, attribute: true))\" message=\"\(XMLText.escape(message, attribute: true))\">"
            + escapedBody + "</failure>\n"
            + "  </testcase>"
    }
}
