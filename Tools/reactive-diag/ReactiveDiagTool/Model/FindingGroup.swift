import ReactiveDiagnosticsReport

/// Findings sharing a fingerprint (and kind): one problem, seen one or more times.
///
/// ```swift
/// for group in FindingGroup.group(report.findings) {
///     print(group.kind, group.count, group.tests)
/// }
/// ```
struct FindingGroup {
    /// The shared fingerprint.
    let fingerprint: String
    /// The shared kind.
    let kind: String
    /// The findings, by id.
    private(set) var findings: [ReportFinding]

    /// The most severe of the group's severities.
    var severity: ReportSeverity {
        representative.severity
    }

    /// The finding shown for the group: the first (by id) of the most severe.
    var representative: ReportFinding {
        findings.first(where: { $0.severity == maximumSeverity }) ?? findings[0]
    }

    private var maximumSeverity: ReportSeverity {
        findings.lazy.map(\.severity).max() ?? .info
    }

    /// How many findings.
    var count: Int {
        findings.count
    }

    /// The tests the findings came from, sorted, without duplicates.
    var tests: [String] {
        Set(findings.compactMap(\.test)).sorted()
    }

    /// The labels, sorted, without duplicates.
    var labels: [String] {
        Set(findings.compactMap(\.label)).sorted()
    }

    /// Groups findings by (kind, fingerprint) in the deterministic order: severity (errors
    /// first), kind, fingerprint, then the smallest id. O(n log n) in the number of groups,
    /// linear in the number of findings.
    static func group(_ findings: [ReportFinding]) -> [FindingGroup] {
        struct Key: Hashable {
            let kind: String
            let fingerprint: String
        }
        var positions: [Key: Int] = [:]
        var groups: [FindingGroup] = []
        for finding in findings {
            let key = Key(kind: finding.kind, fingerprint: finding.fingerprint)
            if let position = positions[key] {
                groups[position].findings.append(finding)
            } else {
                positions[key] = groups.count
                groups.append(FindingGroup(fingerprint: finding.fingerprint, kind: finding.kind, findings: [finding]))
            }
        }
        for index in groups.indices where groups[index].findings.count > 1 {
            groups[index].findings.sort { $0.id < $1.id }
        }
        let keyed = groups.map { group in (group, group.severity, group.findings[0].id) }
        return keyed.sorted { lhs, rhs in
            if lhs.1 != rhs.1 { return lhs.1 > rhs.1 }
            if lhs.0.kind != rhs.0.kind { return lhs.0.kind < rhs.0.kind }
            if lhs.0.fingerprint != rhs.0.fingerprint { return lhs.0.fingerprint < rhs.0.fingerprint }
            return lhs.2 < rhs.2
        }.map(\.0)
    }
}
