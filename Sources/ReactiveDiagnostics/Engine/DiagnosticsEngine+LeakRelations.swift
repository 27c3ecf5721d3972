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

    /// Says that the resources allocated at `stack` were subscribed by an operator of a chain
    /// (`operatorName`, whose own stage was allocated at `operatorStack`) while a value or
    /// completion was delivered to it: a `flatMap`'s inner publishers, a `switchToLatest`'s, a
    /// `catch`'s replacement. They are alive because that chain is, so should they leak they
    /// are folded into its finding (``LeakChains``); and when the operator's own stage has
    /// ended (its upstream finished) while they have not, the finding names them as the cause.
    ///
    /// ```swift
    /// engine.nestLeaks(allocatedAt: innerStack, inside: flatMapStage.allocationStack, operatorName: "FlatMap", test: test)
    /// ```
    ///
    /// Kept by allocation stack until the test's checkpoint, so call it once per subscribe call.
    @_spi(Integration) public func nestLeaks(
        allocatedAt stack: StackID, inside operatorStack: StackID, operatorName: String, test: TestIdentity
    ) {
        guard stack.isCaptured, operatorStack.isCaptured, stack != operatorStack, test.isKnown else { return }
        let nested = NestedLeak(operatorStack: operatorStack, operatorName: operatorName, test: test)
        nestedLeaks.withLock { $0[stack] = nested }
    }

    /// Forgets what ``nestLeaks(allocatedAt:inside:operatorName:test:)`` said for `test`: its
    /// leaks are judged.
    func forgetNestedLeaks(of test: TestIdentity) {
        nestedLeaks.withLock { nested in
            guard !nested.isEmpty else { return }
            nested = nested.filter { $0.value.test != test }
        }
    }
}

/// An operator's inner subscription: which chain stage subscribed it (see
/// ``DiagnosticsEngine/nestLeaks(allocatedAt:inside:operatorName:test:)``).
struct NestedLeak: Sendable {
    var operatorStack: StackID
    var operatorName: String
    var test: TestIdentity
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
