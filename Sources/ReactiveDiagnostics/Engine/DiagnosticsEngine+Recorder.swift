import Dispatch

/// The engine is the recorder every adapter uses: resources go to its ledger, findings to its
/// store, stacks to its interner.
extension DiagnosticsEngine: DiagnosticsRecorder {
    public func register(
        _ kind: ResourceKind, label: DiagnosticLabel, stack: StackID?, test: TestIdentity?
    ) -> RecordedResource {
        let stack = stack ?? captureAllocationStack()
        let test = test ?? currentTest()
        return RecordedResource(token: ledger.register(kind: kind, label: label, stack: stack, test: test), stack: stack, test: test)
    }

    @discardableResult
    public func unregister(_ token: ResourceToken) -> Bool {
        ledger.unregister(token)
    }

    public func report(_ draft: FindingDraft) -> RecordedFinding? {
        let (finding, traps) = recordFinding(draft)
        return finding.map { RecordedFinding(id: $0.id, traps: traps) }
    }

    public func trap(_ recorded: RecordedFinding) {
        guard recorded.traps, let finding = findingStore.finding(recorded.id) else { return }
        trap(finding)
    }

    public func noteCancelBeforeAnyValue(label: DiagnosticLabel, allocationStack: StackID, test: TestIdentity, markers: [String]) {
        notePossiblePrematureCancel(label: label, allocationStack: allocationStack, test: test, markers: markers)
    }

    public var hopProbeBudget: HopProbeBudget? {
        hopProbes
    }
}
