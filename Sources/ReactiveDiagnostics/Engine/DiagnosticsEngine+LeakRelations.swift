import _ReactiveDiagnosticsSupport
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
        leakRelations.withLock { relations in
            relations[site, default: LeakRelation()].stack = related
            relations[site, default: LeakRelation()].role = role
        }
    }

    /// Adds a sentence, computed when the leak is found, to the leak findings of resources
    /// allocated at `stack` with `label`: what only the adapter can tell at that moment.
    ///
    /// ```swift
    /// engine.annotateLeaks(of: .task, label: label, allocatedAt: stack) { [weak owner] in
    ///     owner == nil ? "Its owner is gone: the task outlived it." : nil
    /// }
    /// ```
    ///
    /// `note` runs at the test's checkpoint, with no lock of the library held; keyed by
    /// allocation site like ``explainLeaks(of:label:allocatedAt:by:role:)``.
    public func annotateLeaks(
        of kind: ResourceKind, label: DiagnosticLabel, allocatedAt stack: StackID,
        _ note: @escaping @Sendable () -> String?
    ) {
        let site = LeakSite(kind: kind, label: label, stack: stack)
        leakRelations.withLock { $0[site, default: LeakRelation()].note = note }
    }
}

/// Where leaked resources were allocated: one leak finding per site.
struct LeakSite: Hashable {
    var kind: ResourceKind
    var label: DiagnosticLabel
    var stack: StackID
}

/// What explains the leaks of one site: a second stack and what it is, and a note.
struct LeakRelation {
    var stack: StackID = .none
    var role: String?
    var note: (@Sendable () -> String?)?
}
