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

    /// Why the leaked resources of one site are alive: the first retain cycle among the first
    /// few that have an anchor (see ``ResourceLedger/setAnchor(_:object:)``), else the first
    /// explanation. `nil` when none has an anchor or explanations are off.
    func explainRetention(of tokens: [ResourceToken]) -> ReportRetainPath? {
        guard configuration.explainsRetainPaths else { return nil }
        let builder = retainPathBuilder(limits: configuration.retainPathLimits)
        var first: ReportRetainPath?
        for anchor in tokens.lazy.compactMap({ self.ledger.anchor(of: $0) }).prefix(Self.retainPathAttempts) {
            let path = builder.explain(anchor)
            if path.verdict == .cycle {
                return path
            }
            first = first ?? path
        }
        return first
    }
}

extension DiagnosticsEngine {
    /// A builder that names globals through this engine's resolver and looks closures' lines
    /// up only when the configuration resolves source lines.
    func retainPathBuilder(limits: RetainPathLimits) -> RetainPathBuilder {
        RetainPathBuilder(limits: limits, resolver: sourceLineResolver, resolvesClosureLines: configuration.resolvesSourceLines)
    }
}
