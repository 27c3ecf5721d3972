import ReactiveDiagnosticsReport

/// Which findings a view shows: by kind, test, label and minimum severity.
///
/// ```swift
/// let filter = FindingFilter(kinds: ["leakedSubscription"], minimumSeverity: .warning)
/// let shown = report.findings.filter(filter.matches)
/// ```
struct FindingFilter: Equatable {
    /// Kinds to keep; empty keeps every kind.
    var kinds: Set<String> = []
    /// Substrings of the test name; a finding matches when its test contains any of them.
    var tests: [String] = []
    /// Substrings of the label; a finding matches when its label contains any of them.
    var labels: [String] = []
    /// The least severe findings to keep.
    var minimumSeverity: ReportSeverity = .info
    /// Whether suppressed findings are kept.
    var includeSuppressed = false

    /// Whether the filter keeps `finding`, ignoring suppression.
    func matchesIgnoringSuppression(_ finding: ReportFinding) -> Bool {
        if finding.severity < minimumSeverity { return false }
        if !kinds.isEmpty && !kinds.contains(finding.kind) { return false }
        if !tests.isEmpty {
            guard let test = finding.test, tests.contains(where: { test.contains($0) }) else { return false }
        }
        if !labels.isEmpty {
            guard let label = finding.label, labels.contains(where: { label.contains($0) }) else { return false }
        }
        return true
    }

    /// Whether the filter keeps `finding`.
    func matches(_ finding: ReportFinding) -> Bool {
        (includeSuppressed || finding.isActive) && matchesIgnoringSuppression(finding)
    }
}
