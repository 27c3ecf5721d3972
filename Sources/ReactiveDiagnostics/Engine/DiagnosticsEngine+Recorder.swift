import Dispatch

/// The engine is the recorder every adapter uses: resources go to its ledger, findings to its
/// store, stacks to its interner.
extension DiagnosticsEngine: DiagnosticsRecorder {
    /// Registers a resource in the ledger with `stack` (or the caller's, captured now when
    /// allocation stacks are on) and `test` (or the current one).
    @usableFromInline package func register(
        _ kind: ResourceKind, label: DiagnosticLabel, stack: StackID?, test: TestIdentity?
    ) -> RecordedResource {
        register(kind, label: label, stack: stack, test: test, anchor: nil)
    }

    /// The anchor goes to the ledger only while retain paths are explained
    /// (``Configuration/explainsRetainPaths``).
    @usableFromInline package func register(
        _ kind: ResourceKind, label: DiagnosticLabel, stack: StackID?, test: TestIdentity?, anchor: AnyObject?
    ) -> RecordedResource {
        let stack = stack ?? captureAllocationStack()
        let test = test ?? currentTest()
        let anchor = anchor != nil && explainsRetainPaths ? anchor : nil
        let token = ledger.register(kind: kind, label: label, stack: stack, test: test, anchor: anchor)
        return RecordedResource(token: token, stack: stack, test: test)
    }

    /// Kept in the ledger (its address only) while retain paths are explained.
    @usableFromInline package func setRetainPathAnchor(_ object: AnyObject, for token: ResourceToken) {
        guard explainsRetainPaths else { return }
        ledger.setAnchor(token, object: object)
    }

    /// Ends a resource in the ledger (one compare-and-swap, from any thread); `false` when it
    /// had already ended.
    @discardableResult
    @usableFromInline package func unregister(_ token: ResourceToken) -> Bool {
        ledger.unregister(token)
    }

    /// Records a finding with its policy, suppressions and limit applied; never traps.
    @usableFromInline package func report(_ draft: FindingDraft) -> RecordedFinding? {
        let (finding, traps) = recordFinding(draft)
        return finding.map { RecordedFinding(id: $0.id, traps: traps) }
    }

    /// Writes the report and stops the process for a finding whose policy is
    /// ``FindingPolicy/trap``, unless a suppression matches it.
    @usableFromInline package func trap(_ recorded: RecordedFinding) {
        guard recorded.traps, let finding = findingStore.finding(recorded.id) else { return }
        trap(finding)
    }

    /// Remembers a cancel before any value, for the checkpoint's premature-cancellation check.
    @usableFromInline package func noteCancelBeforeAnyValue(
        label: DiagnosticLabel, allocationStack: StackID, test: TestIdentity, markers: [String]
    ) {
        notePossiblePrematureCancel(label: label, allocationStack: allocationStack, test: test, markers: markers)
    }

    /// The budget of thread-hop probes this engine's configuration allows its streams.
    @usableFromInline package var hopProbeBudget: HopProbeBudget? {
        hopProbes
    }
}
