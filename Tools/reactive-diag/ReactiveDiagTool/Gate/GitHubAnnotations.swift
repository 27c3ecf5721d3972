import ReactiveDiagnosticsReport

/// Writes the gate's new findings as GitHub Actions workflow commands
/// (`::error file=…,line=…,title=…::message`), one per new fingerprint, with why the resource
/// is alive and the fix (placed at the line to change when the fix names a closure, the
/// subscribe site then said in the message), escaped as the
/// runner expects: in the message `%`, CR and LF as `%25`, `%0D`, `%0A`; in properties
/// also `:` and `,` as `%3A` and `%2C`.
///
/// ```
/// ::error file=Sources/Cart/CartViewModel.swift,line=42,col=13,title=leakedSubscription "cart.refresh" (×2)::A subscription …%0A…
/// ```
package enum GitHubAnnotations {
    /// The workflow commands, one per line, at most `limit` annotations plus a notice for the rest.
    static func lines(for facts: inout GateFacts, limit: Int) -> [String] {
        var lines: [String] = []
        var annotated = 0
        for group in facts.evaluation.newGroups {
            guard annotated < limit else { break }
            lines.append(annotation(for: group, facts: &facts))
            annotated += 1
        }
        if facts.evaluation.liveExceeded {
            lines.append(
                "::error title=" + escapeProperty("reactive-diag: live resources at end") + "::"
                    + escapeData(facts.liveMessage))
        }
        let rest = facts.evaluation.newGroups.count - annotated
        if rest > 0 {
            lines.append(
                "::notice title=" + escapeProperty("reactive-diag") + "::"
                    + escapeData(
                        "\(Formatting.count(rest, "more new fingerprint")) not annotated "
                            + "(--max-annotations \(limit)); see the SARIF or JUnit report"))
        }
        return lines
    }

    private static func annotation(for group: FindingGroup, facts: inout GateFacts) -> String {
        let finding = group.representative
        let command: String
        switch group.severity {
        case .error: command = "error"
        case .warning: command = "warning"
        case .info: command = "notice"
        }
        var properties: [String] = []
        let explanation = GateExplanation(finding)
        let subscribed = facts.sourceFrame(of: finding)
        if let change = explanation?.change, let file = change.file, let line = change.line {
            // At the line to change: the closure that closes the cycle.
            properties.append("file=" + escapeProperty(facts.paths.display(file)))
            properties.append("line=\(line)")
            if let column = change.column, column > 0 { properties.append("col=\(column)") }
        } else if let frame = subscribed, let file = frame.file {
            properties.append("file=" + escapeProperty(facts.paths.display(file)))
            if let line = frame.line, line > 0 {
                properties.append("line=\(line)")
                if let column = frame.column, column > 0 { properties.append("col=\(column)") }
            }
        }
        properties.append(
            "title=" + escapeProperty(GateFacts.title(kind: group.kind, label: finding.label) + " (×\(group.count))"))
        var message: [String] = [finding.message]
        if let explanation {
            message += explanation.lines()
            if explanation.change != nil, let frame = subscribed, let file = frame.file, let line = frame.line {
                message.append("subscribed at: \(facts.paths.display(file)):\(line)")
            }
        }
        if !group.tests.isEmpty { message.append("tests: " + Formatting.list(group.tests, limit: 5)) }
        message.append("fingerprint: \(group.fingerprint)")
        if let primary = facts.stacks(of: finding).first {
            message.append("\(primary.heading):")
            message += facts.stackText.lines(for: primary.stack).prefix(12)
        }
        return "::\(command) \(properties.joined(separator: ","))::" + escapeData(message.joined(separator: "\n"))
    }

    /// Escapes a message (the data after `::`).
    package static func escapeData(_ text: String) -> String {
        escape(text, property: false)
    }

    /// Escapes a property value (`file=`, `title=`).
    package static func escapeProperty(_ text: String) -> String {
        escape(text, property: true)
    }

    private static func escape(_ text: String, property: Bool) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count + 16)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "%"): output.append(contentsOf: "%25".utf8)
            case 0x0D: output.append(contentsOf: "%0D".utf8)
            case 0x0A: output.append(contentsOf: "%0A".utf8)
            case UInt8(ascii: ":") where property: output.append(contentsOf: "%3A".utf8)
            case UInt8(ascii: ",") where property: output.append(contentsOf: "%2C".utf8)
            default: output.append(byte)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
