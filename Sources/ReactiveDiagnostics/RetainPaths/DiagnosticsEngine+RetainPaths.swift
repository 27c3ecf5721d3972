import ReactiveDiagnosticsReport

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
            retainPathBuilder(limits: limits ?? configuration.retainPathLimits)
                .explain(anchor: UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque()))
        }
    }
}

extension DiagnosticsEngine {
    /// Resources of one leak site tried at most for a retain cycle.
    static let retainPathAttempts = 3

    /// Why the leaked resources of each site (the tokens of one site per element) are alive:
    /// per site, the first retain cycle among the first few resources that have an anchor (see
    /// ``ResourceLedger/setAnchor(_:object:)``), else the first one's explanation, whose search
    /// for an outside holder is made together with every other site's (one scan of memory per
    /// level for all). `nil` for a site none of whose resources has an anchor, and for every
    /// site when explanations are off.
    func explainRetention(ofSites sites: [[ResourceToken]]) -> [ReportRetainPath?] {
        guard configuration.explainsRetainPaths, !sites.isEmpty else { return sites.map { _ in nil } }
        let builder = retainPathBuilder(limits: configuration.retainPathLimits)
        let regions = MemoryRegions.current()
        var paths = [ReportRetainPath?](repeating: nil, count: sites.count)
        var pending: [(site: Int, explanation: RetainPathBuilder.PendingExplanation)] = []
        for (site, tokens) in sites.enumerated() {
            var first: RetainPathBuilder.PendingExplanation?
            for anchor in tokens.lazy.compactMap({ self.ledger.anchor(of: $0) }).prefix(Self.retainPathAttempts) {
                let explanation = builder.searchCycle(from: anchor, regions: regions)
                if explanation.path.verdict == .cycle {
                    first = explanation
                    break
                }
                first = first ?? explanation
            }
            if let first {
                pending.append((site, first))
            }
        }
        let explained = builder.findOutsideHolders(of: pending.map(\.explanation), regions: regions)
        for (entry, path) in zip(pending, explained) {
            paths[entry.site] = path
        }
        return paths
    }
}

extension DiagnosticsEngine {
    /// A builder that names globals through this engine's resolver and looks closures' lines
    /// up only when the configuration resolves source lines.
    func retainPathBuilder(limits: RetainPathLimits) -> RetainPathBuilder {
        RetainPathBuilder(limits: limits, resolver: sourceLineResolver, resolvesClosureLines: configuration.resolvesSourceLines)
    }
}
