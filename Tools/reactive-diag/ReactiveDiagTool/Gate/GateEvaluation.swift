import ReactiveDiagnosticsReport

/// The gate's decision: which findings are new beyond the baseline, which match it, which
/// baseline entries were not seen any more, and whether too many resources were alive.
///
/// A finding is *considered* when it is not suppressed and `--fail-on` selects it; it is
/// *new* when its fingerprint is not in the baseline. The gate fails when a considered
/// finding is new, or when more than `--max-live` resources were alive at the end.
///
/// ```swift
/// let evaluation = GateEvaluation(report: report, baseline: baseline, policy: .errors, maxLive: nil)
/// print(evaluation.failed, evaluation.newGroups.count)
/// ```
struct GateEvaluation {
    /// The `--fail-on` policy.
    let policy: FailOnPolicy
    /// New considered findings, in the deterministic order (severity, kind, fingerprint, id).
    let newFindings: [ReportFinding]
    /// The same, grouped by fingerprint.
    let newGroups: [FindingGroup]
    /// Considered findings whose fingerprint is in the baseline.
    let matchedFindings: Int
    /// Distinct fingerprints among those.
    let matchedFingerprints: Int
    /// Baseline entries no unsuppressed finding has any more (fixed, or not run).
    let fixedEntries: [Baseline.Entry]
    /// New unsuppressed findings `--fail-on` does not select, per severity.
    let ignoredNew: SeverityCounts
    /// Suppressed findings (never gated).
    let suppressed: Int
    /// Resources alive at the end.
    let liveTotal: Int
    /// The `--max-live` limit.
    let maxLive: Int?
    /// Whether a baseline was given.
    let hasBaseline: Bool

    /// Whether more resources were alive than `--max-live` allows.
    var liveExceeded: Bool {
        maxLive.map { liveTotal > $0 } ?? false
    }

    /// Whether the gate fails (exit 1).
    var failed: Bool {
        !newFindings.isEmpty || liveExceeded
    }

    /// Evaluates `report` against `baseline` (no baseline: every considered finding is new).
    init(report: DiagnosticsReport, baseline: Baseline?, policy: FailOnPolicy, maxLive: Int?, liveTotal: Int) {
        let accepted = baseline?.fingerprints ?? []
        var newFindings: [ReportFinding] = []
        var matched = 0
        var matchedPrints: Set<String> = []
        var seen: Set<String> = []
        var ignored = SeverityCounts()
        var suppressed = 0
        for finding in report.findings {
            guard finding.isActive else {
                suppressed += 1
                continue
            }
            // A folded chain also answers to its stages' former fingerprints (older baselines).
            let names = finding.fingerprints
            seen.formUnion(names)
            let isNew = !names.contains(where: accepted.contains)
            if !policy.considers(finding) {
                if isNew { ignored.add(finding.severity) }
            } else if isNew {
                newFindings.append(finding)
            } else {
                matched += 1
                matchedPrints.insert(names.first(where: accepted.contains) ?? finding.fingerprint)
            }
        }
        self.policy = policy
        self.newFindings = newFindings.sorted(by: ReportFinding.precedes)
        newGroups = FindingGroup.group(newFindings)
        matchedFindings = matched
        matchedFingerprints = matchedPrints.count
        fixedEntries = (baseline?.entries ?? []).filter { !seen.contains($0.fingerprint) }
        ignoredNew = ignored
        self.suppressed = suppressed
        self.liveTotal = liveTotal
        self.maxLive = maxLive
        hasBaseline = baseline != nil
    }
}
