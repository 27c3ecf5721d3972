import ReactiveDiagnosticsReport

/// ANSI styling, or none: every method returns its text unchanged when disabled.
///
/// ```swift
/// let style = TerminalStyle(enabled: true)
/// print(style.bold("Findings"), style.severity(.error, "ERROR"))
/// ```
struct TerminalStyle {
    /// Whether escape sequences are written.
    let enabled: Bool

    /// Bold.
    func bold(_ text: String) -> String { wrap(text, "1") }
    /// Dimmed, for folded frames and secondary facts.
    func dim(_ text: String) -> String { wrap(text, "2") }
    /// The highlight of the user's frames.
    func highlight(_ text: String) -> String { wrap(text, "1;36") }
    /// Source locations.
    func location(_ text: String) -> String { wrap(text, "32") }

    /// Coloured by severity: errors red, warnings yellow, info blue.
    func severity(_ severity: ReportSeverity, _ text: String) -> String {
        switch severity {
        case .error: return wrap(text, "1;31")
        case .warning: return wrap(text, "1;33")
        case .info: return wrap(text, "1;34")
        }
    }

    private func wrap(_ text: String, _ code: String) -> String {
        enabled && !text.isEmpty ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}

/// `--color`: when to colour the text view.
enum ColorChoice: String, CaseIterable {
    /// On a terminal, unless `NO_COLOR` is set or `TERM` is `dumb`.
    case auto
    /// Always.
    case always
    /// Never.
    case never

    /// Whether to colour output written to `sink` under `environment`.
    func isEnabled(for sink: any OutputSink, environment: [String: String]) -> Bool {
        switch self {
        case .always: return true
        case .never: return false
        case .auto:
            if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
            if environment["TERM"] == "dumb" { return false }
            return sink.isTerminal
        }
    }
}
