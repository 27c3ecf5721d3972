import ReactiveDiagnostics

extension TrackedResource {
    /// Reports a resource whose end became impossible (its callback or emitter was released
    /// before it was called or finished), then ends it so the checkpoint does not count it again.
    ///
    /// The finding has the kind the checkpoint would give (``ResourceKind/leakFindingKind``),
    /// so baselines see one fingerprint either way, and `details["reason"] == "released"`.
    /// When the test's checkpoint already reported this site as still alive (the callback
    /// was released after its test ended), nothing is recorded: a resource is reported at
    /// release or at the checkpoint, never both.
    func reportReleased(_ message: String) {
        let kind = self.kind.leakFindingKind
        let alreadyReported = engine.findings(for: test).contains { finding in
            finding.kind == kind && finding.label == labelText && finding.allocationStack == allocationStack
                && finding.details["reason"] == nil
        }
        if !alreadyReported {
            // Record before ending: a checkpoint settling meanwhile still sees the resource
            // alive, so it collects this finding instead of missing it.
            report(kind, message, details: ["reason": "released", "count": "1", "resourceKind": self.kind.name])
        }
        end()
    }
}
