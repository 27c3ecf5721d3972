extension DiagnosticsEngine {
    /// Names a second stack that explains resources allocated at `stack` with `label`, should
    /// they leak: the leak finding carries it as its ``Finding/relatedStack``, shown as
    /// "`role` at:" beside the allocation stack.
    ///
    /// An iteration of an async stream, for example, is allocated where it is iterated (the
    /// `for await` loop); what explains a leaked one is also where the stream that never
    /// finished was made:
    ///
    /// ```swift
    /// engine.explainLeaks(of: .iteration, label: label, allocatedAt: loopStack, by: streamStack, role: "stream created")
    /// ```
    ///
    /// Keyed by allocation site, so call it once per site rather than per resource; the last
    /// call for a site wins.
    public func explainLeaks(
        of kind: ResourceKind, label: DiagnosticLabel, allocatedAt stack: StackID, by related: StackID, role: String
    ) {
        guard stack.isCaptured, related.isCaptured else { return }
        let site = LeakSite(kind: kind, label: label, stack: stack)
        leakRelations.withLock { $0[site] = LeakRelation(stack: related, role: role) }
    }
}

/// Where leaked resources were allocated: one leak finding per site.
struct LeakSite: Hashable {
    var kind: ResourceKind
    var label: DiagnosticLabel
    var stack: StackID
}

/// A second stack that explains leaks of one site, and what it is.
struct LeakRelation {
    var stack: StackID
    var role: String
}
