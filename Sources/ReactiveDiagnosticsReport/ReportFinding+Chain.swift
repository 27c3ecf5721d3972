import Foundation

extension ReportFinding {
    /// The `details` key listing a folded chain's stages, upstream first, joined by ` → `.
    public static let stagesKey = "stages"
    /// The `details` key holding the fingerprints a folded chain's stages had as findings of
    /// their own, separated by spaces.
    public static let stageFingerprintsKey = "stageFingerprints"
    /// The `details` key naming the stage that keeps a folded chain alive on its own: an
    /// operator's inner publisher that never completes after the chain's source finished.
    public static let causeKey = "cause"

    /// The stages of the chain this leak stands for, upstream first (empty for a finding that
    /// folds nothing).
    ///
    /// Every stage of a leaked chain (`subject.map { … }.filter { … }.sink { … }`) is alive
    /// because the chain's subscriber is: the engine reports one finding per chain, at the
    /// subscribe call, and lists the stages here.
    ///
    /// ```swift
    /// for finding in report.findings where !finding.stages.isEmpty {
    ///     print(finding.stages.joined(separator: " → "))   // PassthroughSubject → Map → Filter
    /// }
    /// ```
    public var stages: [String] {
        if let chain, !chain.isEmpty {
            return chain.map(\.name)
        }
        return details[Self.stagesKey].map { $0.components(separatedBy: " → ") } ?? []
    }

    /// Every fingerprint that names this finding: its own, then those its folded stages had as
    /// findings of their own (what a baseline written before chains were folded holds). The
    /// gate counts a finding as accepted when any of them is in the baseline.
    ///
    /// ```swift
    /// let accepted = finding.fingerprints.contains { baseline.contains($0) }
    /// ```
    public var fingerprints: [String] {
        let stages =
            chain.map { $0.map(\.fingerprint) }
            ?? details[Self.stageFingerprintsKey]?.split(separator: " ").map(String.init) ?? []
        var seen: Set<String> = [fingerprint]
        return [fingerprint] + stages.filter { seen.insert($0).inserted }
    }

    /// Every stack the finding refers to: its own three and its chain's stages'.
    ///
    /// ```swift
    /// let used = Set(report.findings.flatMap(\.stackIDs))
    /// ```
    public var stackIDs: [Int] {
        [allocationStack, eventStack, relatedStack].compactMap { $0 } + (chain ?? []).compactMap(\.allocationStack)
    }
}
