import ReactiveDiagnosticsReport
import ReactiveDiagnosticsRetainPaths

extension DiagnosticsEngine {
    /// Why `object` is still alive: the shortest loop of strong references from it back to
    /// itself through the user's code (a retain cycle, with the owner, its property and the
    /// capturing closure's line), or, when there is none, what it holds of the user's.
    ///
    /// The engine calls this for every leaked subscription at the test's checkpoint; it is
    /// public for tests that want to ask about an object of their own. It reads memory without
    /// ever faulting or retaining, and stops at `limits`.
    ///
    /// ```swift
    /// let path = DiagnosticsEngine.shared.retainPath(of: subscriber)
    /// print(path.textLines().joined(separator: "\n"))
    /// ```
    public func retainPath(of object: AnyObject, limits: RetainPathLimits? = nil) -> ReportRetainPath {
        withExtendedLifetime(object) {
            retainPathExplainer(limits: limits ?? configuration.retainPathLimits)
                .explain(.object(UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())))
        }
    }
}

extension DiagnosticsEngine {
    /// Resources of one leak site tried at most for a retain cycle.
    static let retainPathAttempts = 3

    /// Why the leaked resources of each site (the tokens of one site per element) are alive:
    /// per site, the first retain cycle among the first few resources that have an anchor (see
    /// ``ResourceLedger/setAnchor(_:object:)``), else the first one's explanation
    /// (``RetainPathExplainer/explain(sites:attempts:)``). `nil` for a site none of whose
    /// resources has an anchor, and for every site when explanations are off.
    func explainRetention(ofSites sites: [[ResourceToken]]) -> [ReportRetainPath?] {
        guard configuration.explainsRetainPaths, !sites.isEmpty else { return sites.map { _ in nil } }
        let anchors = sites.map { tokens in
            Array(tokens.lazy.compactMap { self.ledger.anchor(of: $0) }.prefix(Self.retainPathAttempts))
        }
        return retainPathExplainer(limits: configuration.retainPathLimits)
            .explain(sites: anchors, attempts: Self.retainPathAttempts)
    }

    /// The stage of a chain (its sites, upstream first) whose retention explains the chain: the
    /// most downstream one with a resource that has an anchor. What holds a chain alive holds
    /// its downstream end (each stage holds the one below it), so one walk from there says why
    /// for the whole chain; the stages above are not walked. `nil` when explanations are off or
    /// no stage has an anchor.
    func explainedStage(of sites: [LeakSite], tokens: [LeakSite: [ResourceToken]]) -> LeakSite? {
        guard configuration.explainsRetainPaths else { return nil }
        return sites.last { site in
            (tokens[site] ?? []).contains { self.ledger.anchor(of: $0) != nil }
        }
    }

    /// An explainer that names globals through this engine's resolver and looks closures' lines
    /// up only when the configuration resolves source lines.
    func retainPathExplainer(limits: RetainPathLimits) -> RetainPathExplainer {
        RetainPathExplainer(
            budget: .init(objects: limits.objects, depth: limits.depth, time: limits.time),
            resolver: sourceLineResolver, resolvesClosureLines: configuration.resolvesSourceLines)
    }
}
