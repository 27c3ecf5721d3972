import Foundation
import ReactiveDiagnosticsReport

/// Which findings the gate considers: a severity threshold, a list of kinds, or both.
///
/// `--fail-on error` (the default) considers errors; `--fail-on warning` warnings and
/// errors; `--fail-on leakedSubscription,wrongThread` exactly those kinds;
/// `--fail-on warning,leakedSubscription` warnings and errors plus that kind at any severity.
///
/// ```swift
/// let policy = try FailOnPolicy(parsing: "leakedSubscription,wrongThread")
/// assert(policy.kinds == ["leakedSubscription", "wrongThread"] && policy.threshold == nil)
/// ```
struct FailOnPolicy: Equatable, CustomStringConvertible {
    /// The least severe findings considered, or `nil` when only ``kinds`` are.
    var threshold: ReportSeverity?
    /// Kinds considered at any severity.
    var kinds: Set<String>

    /// The default: errors.
    static let errors = FailOnPolicy(threshold: .error, kinds: [])

    /// Parses a comma-separated list of severities and kinds.
    ///
    /// - Throws: ``ToolError`` (exit 2) for an empty list.
    init(parsing text: String) throws {
        var threshold: ReportSeverity?
        var kinds: Set<String> = []
        for item in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !item.isEmpty {
            if let severity = ReportSeverity(rawValue: item.lowercased()) {
                threshold = min(threshold ?? severity, severity)
            } else {
                kinds.insert(item)
            }
        }
        guard threshold != nil || !kinds.isEmpty else {
            throw ToolError("--fail-on: expected a severity (error, warning, info) or finding kinds, got '\(text)'")
        }
        self.init(threshold: threshold, kinds: kinds)
    }

    init(threshold: ReportSeverity?, kinds: Set<String>) {
        self.threshold = threshold
        self.kinds = kinds
    }

    /// Whether the gate considers `finding` (suppression is checked separately).
    func considers(_ finding: ReportFinding) -> Bool {
        if let threshold, finding.severity >= threshold { return true }
        return kinds.contains(finding.kind)
    }

    var description: String {
        var parts: [String] = []
        if let threshold { parts.append(threshold.rawValue) }
        parts += kinds.sorted()
        return parts.joined(separator: ",")
    }
}
