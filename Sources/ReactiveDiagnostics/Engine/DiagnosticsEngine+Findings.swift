import Foundation
import ReactiveDiagnosticsSymbolication
import _ReactiveDiagnosticsSupport

extension DiagnosticsEngine {
    /// Records a finding: resolves its policy, captures the offending event's stack and
    /// thread, attributes it to a test, and notifies observers (outside every lock).
    ///
    /// Under the ``FindingPolicy/trap`` policy an unsuppressed finding writes the report and
    /// stops the process with `fatalError`, for a debugger to catch. (Monitors and probes record
    /// through the recorder's `report(_:)` instead, and trap once they are done with the event.)
    ///
    /// - Returns: The finding, or `nil` when the in-memory limit was reached.
    @discardableResult
    public func record(_ draft: FindingDraft) -> Finding? {
        let (finding, traps) = recordFinding(draft)
        if let finding, traps {
            trap(finding)
        }
        return finding
    }

    /// Records a finding without ever trapping; says whether its policy is ``FindingPolicy/trap``.
    func recordFinding(_ draft: FindingDraft) -> (Finding?, traps: Bool) {
        // The master switch: a disabled engine reports nothing, whatever an adapter still sees.
        guard isEnabled else { return (nil, false) }
        let severity = draft.severity ?? draft.kind.defaultSeverity
        let policy = configuration.policies.policy(for: draft.kind, severity: severity)
        let eventStack: StackID
        if draft.eventStack.isCaptured {
            eventStack = draft.eventStack
        } else if draft.capturesEventStack && policy != .ignore {
            eventStack = captureEventStack()
        } else {
            eventStack = .none
        }
        let thread = ThreadInfo.current
        let test = draft.test.isKnown ? draft.test : currentTest()
        let time = elapsed
        let finding = findingStore.append { id in
            Finding(
                id: id, kind: draft.kind, severity: severity, message: draft.message, label: draft.label,
                resourceKind: draft.resourceKind, test: test, allocationStack: draft.allocationStack,
                eventStack: eventStack, relatedStack: draft.relatedStack, thread: thread,
                otherThread: draft.otherThread,
                time: time, details: draft.details, retainPath: draft.retainPath, chain: draft.chain, policy: policy,
                suppressedBy: policy == .ignore ? "policy:ignore" : nil)
        }
        if finding != nil, policy != .ignore, configuration.resolvesSourceLines, sourceLineResolver.claimWarmUp() {
            // The process's first finding where no test began (``prepareToNameStacks()`` claims
            // this when one does): the binary's line tables are read now, while the code goes
            // on, rather than when the finding is shown. The library's own work, never in flight.
            let resolver = sourceLineResolver
            Thread.detachNewThread { WorkInFlight.asOwnWork { resolver.warmUp() } }
        }
        return (finding, policy == .trap)
    }

    /// Writes the report and stops the process on a finding under the trap policy, unless a
    /// suppression matches it.
    func trap(_ finding: Finding) {
        guard applySuppressions(to: finding) == nil else { return }
        let text = describe(finding)
        StandardError.write("ReactiveDiagnostics: trapping on finding (policy trap):\n\(text)\n")
        _ = try? writeReport()
        fatalError("ReactiveDiagnostics: \(finding.kind): \(finding.message)")
    }

    /// Adds the other side of a concurrent delivery to a recorded finding: the stack and
    /// thread of the delivery that was in progress.
    public func attachRelatedStack(_ stack: StackID, thread: ThreadInfo, toFinding id: Int) {
        findingStore.update(id) { finding in
            finding.relatedStack = stack
            finding.otherThread = thread
        }
    }

    /// Every finding so far, in order.
    public func findings() -> [Finding] {
        findingStore.all()
    }

    /// Findings attributed to `test`.
    public func findings(for test: TestIdentity) -> [Finding] {
        findingStore.all().filter { $0.test == test }
    }

    /// How many findings were recorded.
    public var findingCount: Int {
        findingStore.count
    }

    /// How many findings were not kept because ``Configuration/maximumFindings`` was reached
    /// (the report carries the same number as `droppedFindings`).
    public var droppedFindingCount: Int {
        findingStore.dropped
    }

    /// Adds an observer of new findings (the crash journal uses this).
    public func addFindingObserver(_ observer: any FindingObserver) {
        findingStore.addObserver(observer)
    }

    /// Removes an observer added with ``addFindingObserver(_:)``.
    public func removeFindingObserver(_ observer: any FindingObserver) {
        findingStore.removeObserver(observer)
    }

    /// Forgets every finding (for tests of the library itself; the ledger is kept).
    public func removeAllFindings() {
        findingStore.removeAll()
        fingerprints.withLock { $0.removeAll() }
    }

    // MARK: Fingerprints

    /// A stable identity for a finding: a hash of its kind, label and symbolized frames
    /// (the user's frames of the allocation stack, or of the event stack when no allocation
    /// stack was captured). Never depends on raw addresses, so it survives rebuilds and ASLR.
    ///
    /// A leak that stands for a whole chain (its stages folded into it, listed in
    /// `details["stages"]`) keeps of its label only the downstream stage's own name (`Map` of
    /// `Map<Filter<PassthroughSubject<Int, Never>>, Int>`): with the user's frames of the
    /// subscribe call, adding an operator upstream keeps the fingerprint.
    public func fingerprint(of finding: Finding) -> String {
        let key = FingerprintKey(
            kind: finding.kind,
            label: LeakChains.fingerprintLabel(finding.label, folded: finding.details[ReportFinding.stagesKey] != nil),
            stack: finding.allocationStack.isCaptured ? finding.allocationStack : finding.eventStack)
        if let cached = fingerprints.withLock({ $0[key] }) {
            return cached
        }
        let value = fingerprint(kind: key.kind, label: key.label, stack: key.stack)
        fingerprints.withLock { $0[key] = value }
        return value
    }

    func fingerprint(kind: FindingKind, label: String?, stack: StackID) -> String {
        let frames =
            stack.isCaptured ? symbolize(stack).frames.map { (function: $0.function, category: $0.category) } : []
        return FindingFingerprint.make(kind: kind.rawValue, label: label, frames: frames)
    }

    // MARK: Suppressions

    /// Checks a finding against the configured suppressions; marks it suppressed when one
    /// matches and returns the rule (or the existing suppression).
    @discardableResult
    public func applySuppressions(to finding: Finding) -> String? {
        if let existing = findingStore.finding(finding.id)?.suppressedBy {
            return existing
        }
        let rules = configuration.suppressions
        guard !rules.rules.isEmpty else { return nil }
        guard let rule = rules.match(kind: finding.kind, texts: suppressionTexts(for: finding)) else {
            return nil
        }
        let name = rule.description
        findingStore.update(finding.id) { $0.suppressedBy = name }
        return name
    }

    /// Marks a finding suppressed for a reason of the caller's (a per-test allowance).
    public func suppress(_ finding: Finding, reason: String) {
        findingStore.update(finding.id) { finding in
            if finding.suppressedBy == nil {
                finding.suppressedBy = reason
            }
        }
    }

    func suppressionTexts(for finding: Finding) -> [String] {
        var texts: [String] = []
        if let label = finding.label {
            texts.append(label)
        }
        // A folded chain answers to the labels of all its stages.
        if let stages = finding.details[ReportFinding.stagesKey] {
            texts += stages.components(separatedBy: " → ")
        }
        for stack in [finding.allocationStack, finding.eventStack] where stack.isCaptured {
            for frame in symbolize(stack).frames {
                if let function = frame.function { texts.append(function) }
                if let module = frame.module { texts.append(module) }
                if let image = frame.imagePath { texts.append(image) }
            }
        }
        return texts
    }

    /// The latest state of a finding (suppression and related stack may have changed).
    public func latest(_ finding: Finding) -> Finding {
        findingStore.finding(finding.id) ?? finding
    }
}
