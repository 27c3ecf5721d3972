/// What the hot path — stream monitors and scheduler probes — needs from the engine, and
/// nothing more: register and unregister a resource, report a finding draft, ask the current
/// test. ``DiagnosticsEngine`` is the recorder adapters use; a test can hand a monitor a
/// recorder of its own and watch exactly what it records.
///
/// A recorder never stops the process inside ``report(_:)``: under the
/// ``FindingPolicy/trap`` policy it answers with ``RecordedFinding/traps`` set, and the caller,
/// once it has finished its own bookkeeping of the event, calls ``trap(_:)``.
///
/// ```swift
/// final class CountingRecorder: DiagnosticsRecorder, @unchecked Sendable {
///     var live = 0
///     var drafts: [FindingDraft] = []
///
///     var isEnabled: Bool { true }
///     func currentTest() -> TestIdentity { .none }
///     func register(_ kind: ResourceKind, label: DiagnosticLabel, stack: StackID?, test: TestIdentity?) -> RecordedResource {
///         live += 1
///         return RecordedResource(token: ResourceToken(rawValue: UInt64(live)), stack: stack ?? .none, test: test ?? .none)
///     }
///     func unregister(_ token: ResourceToken) -> Bool { live -= 1; return true }
///     func report(_ draft: FindingDraft) -> RecordedFinding? {
///         drafts.append(draft)
///         return RecordedFinding(id: drafts.count - 1, traps: false)
///     }
///     func trap(_ finding: RecordedFinding) {}
/// }
///
/// let recorder = CountingRecorder()
/// let monitor = StreamMonitor(recorder: recorder, label: DiagnosticLabel("feed"))
/// monitor.didTerminate(monitor.willTerminate(failure: nil))      // before its subscription
/// assert(recorder.drafts.map(\.kind) == [.eventBeforeSubscription] && recorder.live == 0)
/// ```
///
/// Monitors and probes call it per subscription or per scheduled action (never per value on
/// the normal path), through a class-bound existential: one indirect call each.
@usableFromInline package protocol DiagnosticsRecorder: AnyObject, Sendable {
    // MARK: Resources

    /// Whether adapters should check and track at all.
    var isEnabled: Bool { get }

    /// The test the caller is working for, or ``TestIdentity/none``.
    func currentTest() -> TestIdentity

    /// Registers a resource coming alive now.
    ///
    /// - Parameters:
    ///   - kind: What the resource is (a subscription, a scheduled action…).
    ///   - label: The name findings show for it.
    ///   - stack: Its allocation stack; `nil` captures the caller's stack now (when allocation
    ///     stacks are on).
    ///   - test: The test it belongs to; `nil` resolves ``currentTest()``.
    /// - Returns: The token to unregister it with, and the stack and test it was registered with.
    func register(
        _ kind: ResourceKind, label: DiagnosticLabel, stack: StackID?, test: TestIdentity?
    ) -> RecordedResource

    /// Registers a resource coming alive now, with the object whose references explain its
    /// lifetime (see ``setRetainPathAnchor(_:for:)``). By default the anchor is dropped and
    /// ``register(_:label:stack:test:)`` answers.
    ///
    /// - Parameters:
    ///   - kind: What the resource is (a subscription, a scheduled action…).
    ///   - label: The name findings show for it.
    ///   - stack: Its allocation stack; `nil` captures the caller's stack now (when allocation
    ///     stacks are on).
    ///   - test: The test it belongs to; `nil` resolves ``currentTest()``.
    ///   - anchor: The object whose references explain its lifetime; only its address may be
    ///     kept, never the object.
    /// - Returns: The token to unregister it with, and the stack and test it was registered with.
    func register(
        _ kind: ResourceKind, label: DiagnosticLabel, stack: StackID?, test: TestIdentity?, anchor: AnyObject?
    ) -> RecordedResource

    /// Names the object whose references explain a live resource's lifetime (its subscriber,
    /// or the stage that checks it): if the resource leaks, a retain cycle is looked for from
    /// there. Only its address may be kept, never the object. By default nothing is kept.
    func setRetainPathAnchor(_ object: AnyObject, for token: ResourceToken)

    /// Ends a resource; `false` when it had already ended.
    @discardableResult
    func unregister(_ token: ResourceToken) -> Bool

    // MARK: Findings

    /// Records a finding. Never stops the process: see ``trap(_:)``.
    ///
    /// - Returns: What was recorded, or `nil` when nothing was kept (the limit was reached).
    func report(_ draft: FindingDraft) -> RecordedFinding?

    /// Stops the process for a finding reported with ``RecordedFinding/traps`` (writing the report
    /// first), unless a suppression matches it; returns otherwise. Call it after the event's
    /// bookkeeping is done, never from inside it.
    func trap(_ finding: RecordedFinding)

    // MARK: Streams (defaults: no stacks, no probes, no anchors, nothing remembered)

    /// Captures the current stack as an offending event's stack (when event stacks are on).
    func captureEventStack() -> StackID

    /// Adds the other side of a concurrent delivery (its stack and thread) to a finding.
    func attachRelatedStack(_ stack: StackID, thread: ThreadInfo, toFinding id: Int)

    /// A stream was cancelled before any value: remembers the cancel (and its stack) so the
    /// test's checkpoint can tell whether a released cancellable caused it.
    func noteCancelBeforeAnyValue(
        label: DiagnosticLabel, allocationStack: StackID, test: TestIdentity, markers: [String])

    /// What thread-hop probes of this recorder's streams may wait (see ``ThreadHopProbe``);
    /// `nil`: streams never probe.
    var hopProbeBudget: HopProbeBudget? { get }
}

extension DiagnosticsRecorder {
    /// The anchor is dropped.
    package func register(
        _ kind: ResourceKind, label: DiagnosticLabel, stack: StackID?, test: TestIdentity?, anchor: AnyObject?
    ) -> RecordedResource {
        register(kind, label: label, stack: stack, test: test)
    }

    /// Anchors are not kept.
    package func setRetainPathAnchor(_ object: AnyObject, for token: ResourceToken) {}

    /// No event stacks.
    package func captureEventStack() -> StackID { .none }

    /// Related stacks are dropped.
    package func attachRelatedStack(_ stack: StackID, thread: ThreadInfo, toFinding id: Int) {}

    /// Early cancels are not remembered.
    package func noteCancelBeforeAnyValue(
        label: DiagnosticLabel, allocationStack: StackID, test: TestIdentity, markers: [String]
    ) {}

    /// No thread-hop probes.
    package var hopProbeBudget: HopProbeBudget? { nil }
}

/// A resource a ``DiagnosticsRecorder`` registered: its token and what it was registered with.
///
/// ```swift
/// let resource = recorder.register(.subscription, label: DiagnosticLabel("feed"), stack: nil, test: nil)
/// // …the subscription lives…
/// recorder.unregister(resource.token)   // ended: no leak
/// ```
@usableFromInline package struct RecordedResource: Sendable, Hashable {
    /// The token to unregister it with.
    package var token: ResourceToken
    /// Its allocation stack (``StackID/none`` when stacks are off).
    package var stack: StackID
    /// The test it belongs to.
    package var test: TestIdentity

    /// Describes a registered resource.
    package init(token: ResourceToken, stack: StackID, test: TestIdentity) {
        self.token = token
        self.stack = stack
        self.test = test
    }
}

/// A finding a ``DiagnosticsRecorder`` recorded.
///
/// ```swift
/// if let recorded = recorder.report(draft) {
///     finishBookkeeping()                  // the event's own state first
///     if recorded.traps { recorder.trap(recorded) }
/// }
/// ```
@usableFromInline package struct RecordedFinding: Sendable, Hashable {
    /// Its id (``Finding/id``).
    package var id: Int
    /// Whether its policy is ``FindingPolicy/trap``: the caller should call
    /// ``DiagnosticsRecorder/trap(_:)`` once it is done with the event.
    package var traps: Bool

    /// Describes a recorded finding.
    package init(id: Int, traps: Bool) {
        self.id = id
        self.traps = traps
    }
}
