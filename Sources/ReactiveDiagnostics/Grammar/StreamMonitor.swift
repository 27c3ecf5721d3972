import CReactiveDiagnostics
import Synchronization

/// The grammar checker of one stream, as this package's modules name it (see `_StreamMonitor`).
@usableFromInline package typealias StreamMonitor = _StreamMonitor

/// The grammar checker of one stream (one subscription), fed by an adapter.
///
/// A monitor checks `next* (finished | failure)` with Reactive Streams' subscription and
/// demand rules, serial delivery, and an optional ``StreamContract``. It is registered in
/// the ledger as a live resource from creation until the stream terminates, is cancelled,
/// or the monitor is deallocated.
///
/// Adapters bracket each delivery so that deliveries overlapping on two threads, or
/// re-entering on one, are seen:
///
/// ```swift
/// let monitor = engine.makeStreamMonitor(label: DiagnosticLabel("refresh"))
/// monitor.receivedSubscription()
/// monitor.requested(.unlimited)
/// let delivery = monitor.willDeliverValue()
/// let more = downstream.receive(value)            // user code runs outside every lock
/// monitor.didDeliverValue(delivery, additionalDemand: .max(more))
/// let end = monitor.willTerminate(failure: nil)
/// downstream.receive(completion: .finished)
/// monitor.didTerminate(end)
/// ```
///
/// The hot path (a value) is one compare-and-swap to claim delivery, a few relaxed loads
/// and stores, and, for bounded demand, one atomic decrement. Findings (rare) capture the
/// offending stack and take the findings lock.
///
/// A monitor depends on its `DiagnosticsRecorder` only (the engine, for adapters): it
/// registers its resource there, reports finding drafts, and asks for the current test. Under
/// the ``FindingPolicy/trap`` policy it traps after its bookkeeping of the offending event is
/// done, never from inside the recorder's call.
///
/// An adapter may subclass it to make the monitor the framework's own subscription object
/// (`.diagnosed()` in CombineDiagnostics does): one object per subscription instead of two.
/// Everything it checks is `final`.
///
/// Not API: the package's modules call it `StreamMonitor` (a `package` type alias). The class
/// itself is public, under an underscored name, only because Swift lets another module
/// subclass a class only when it is `open`; every member is `package` (the adapters'
/// `@inlinable` fast paths call them through `@usableFromInline`), so no code outside this
/// package can make, subclass or call one. See Docs/PublicAPI.md.
open class _StreamMonitor: @unchecked Sendable {
    // Unchecked: every stored property is immutable or atomic; subclasses keep it that way
    // (or guard what they add themselves).
    /// What the monitor checks and how it appears in the ledger.
    @usableFromInline package struct Options: Sendable {
        /// Check demand (Combine, Reactive Streams); `false` for frameworks without it (RxSwift).
        package var tracksDemand: Bool
        /// Expect a subscription signal before events; `false` for frameworks without one.
        package var expectsSubscription: Bool
        /// The ledger kind of the stream.
        package var resourceKind: ResourceKind
        /// Demangled-name fragments that, found in the stack of a cancel that comes before any
        /// value, mean the cancellable was released rather than cancelled on purpose (for
        /// Combine: `AnyCancellable.deinit`). Empty turns the check off.
        package var prematureCancellationMarkers: [String]

        /// Creates options; the defaults suit Combine-like streams.
        @usableFromInline package init(
            tracksDemand: Bool = true, expectsSubscription: Bool = true, resourceKind: ResourceKind = .subscription,
            prematureCancellationMarkers: [String] = []
        ) {
            self.tracksDemand = tracksDemand
            self.expectsSubscription = expectsSubscription
            self.resourceKind = resourceKind
            self.prematureCancellationMarkers = prematureCancellationMarkers
        }
    }

    /// Where the stream is in its life.
    package enum State: UInt8, Sendable {
        /// Created, no subscription yet.
        case awaitingSubscription
        /// Subscribed, delivering.
        case active
        /// Finished normally.
        case finished
        /// Failed.
        case failed
        /// Cancelled by its subscriber.
        case cancelled

        var isTerminal: Bool { self == .finished || self == .failed }
    }

    /// The result of ``willDeliverValue()`` / ``willTerminate(failure:)``; hand it back to the
    /// matching `did…` call.
    @usableFromInline package struct Delivery: Sendable {
        fileprivate enum Claim: UInt8 { case owner, reentrant, concurrent }
        fileprivate let claim: Claim
        fileprivate let previousTest: UInt32
    }

    /// Where the resource is registered and findings go (the engine, unless a test gave its own).
    package let recorder: any DiagnosticsRecorder
    /// The stream's label.
    package let label: DiagnosticLabel
    /// The declared contract, if any.
    package let contract: StreamContract?
    /// What is checked.
    package let options: Options
    /// Where the subscription was made.
    package let allocationStack: StackID
    /// The test that made it.
    package let test: TestIdentity
    /// The ledger token.
    package let token: ResourceToken

    private let phase = Atomic<UInt8>(State.awaitingSubscription.rawValue)
    private let demand = Atomic<Int>(0)
    private let values = Atomic<Int>(0)
    private let registered = Atomic<Bool>(true)
    private let serial: SerialDelivery

    /// Creates a monitor for one new subscription and registers it with `recorder` as live.
    /// Adapters use `DiagnosticsEngine.makeStreamMonitor(label:contract:options:allocationStack:test:anchor:)` (`@_spi(Integration)`).
    ///
    /// - Parameters:
    ///   - recorder: Where the monitor registers its subscription and reports findings (the
    ///     engine, for adapters; a recorder of its own in a test).
    ///   - label: The name findings and the report show for the stream.
    ///   - contract: What the stream promises, checked as its events arrive; `nil` checks the
    ///     grammar alone.
    ///   - options: What the adapter's framework allows (see ``Options``).
    ///   - allocationStack: Where the subscription was made; `nil` lets the recorder capture
    ///     the caller's stack now.
    ///   - test: The test it belongs to; `nil` asks the recorder for the current one.
    ///   - anchor: The object whose references explain the subscription's lifetime, when it
    ///     exists already (see ``setRetainPathAnchor(_:)``).
    @usableFromInline package init(
        recorder: any DiagnosticsRecorder, label: DiagnosticLabel, contract: StreamContract? = nil,
        options: Options = Options(), allocationStack: StackID? = nil, test: TestIdentity? = nil,
        anchor: AnyObject? = nil
    ) {
        self.recorder = recorder
        self.label = label
        self.contract = contract
        self.options = options
        let resource = recorder.register(
            options.resourceKind, label: label, stack: allocationStack, test: test, anchor: anchor)
        serial = SerialDelivery(
            probes: recorder.hopProbeBudget?.probesPerStream ?? 0,
            site: HopProbeBudget.site(stack: resource.stack, label: label))
        self.allocationStack = resource.stack
        self.test = resource.test
        token = resource.token
        if !options.expectsSubscription {
            phase.store(State.active.rawValue, ordering: .relaxed)
            demand.store(Int.max, ordering: .relaxed)
        }
    }

    deinit {
        // Torn down without a terminal event or cancel: nothing is alive any more.
        unregister()
    }

    /// Ends the ledger entry once (terminal event, cancel or deinit, whichever comes first).
    @inline(__always)
    private func unregister() {
        if registered.exchange(false, ordering: .relaxed) {
            recorder.unregister(token)
        }
    }

    /// Names the object whose references explain this subscription's lifetime (its
    /// subscriber, or the stage that checks it): if the subscription leaks, the engine walks
    /// from it to find the retain cycle that keeps it alive. Only the address is kept.
    @usableFromInline package final func setRetainPathAnchor(_ object: AnyObject) {
        recorder.setRetainPathAnchor(object, for: token)
    }

    /// The stream's state now.
    package final var state: State {
        State(rawValue: phase.load(ordering: .relaxed)) ?? .active
    }

    /// Values delivered so far. Exact while deliveries are serial; each reported concurrent
    /// delivery may cost the count one (the owner counts without an atomic read-modify-write).
    package final var valuesDelivered: Int {
        values.load(ordering: .relaxed)
    }

    /// Outstanding demand (`nil` when unlimited).
    package final var outstandingDemand: Int? {
        let value = demand.load(ordering: .relaxed)
        return value == Int.max ? nil : value
    }

    private var name: String {
        let text = label.name
        return text.isEmpty ? "stream" : "'\(text)'"
    }

    // MARK: Subscription and demand

    /// The subscriber received its subscription.
    @usableFromInline package final func receivedSubscription() {
        let (exchanged, original) = phase.compareExchange(
            expected: State.awaitingSubscription.rawValue, desired: State.active.rawValue,
            ordering: .acquiringAndReleasing)
        if !exchanged {
            let state = State(rawValue: original) ?? .active
            var trap = PendingTrap()
            report(
                .duplicateSubscription,
                "\(name) received a second subscription when it already had one (state: \(state)); the subscriber must cancel the second (Reactive Streams 2.5)",
                details: ["state": "\(state)"], &trap)
            trap.fire(recorder)
        }
    }

    /// The subscriber requested more values.
    @usableFromInline package final func requested(_ more: StreamDemand) {
        let current = State(rawValue: phase.load(ordering: .relaxed)) ?? .active
        if case .max(let count) = more, count <= 0 {
            var trap = PendingTrap()
            report(
                .invalidDemand,
                "\(name) was asked for \(count) values; a request must be positive (Reactive Streams 3.9)",
                details: ["demand": "\(count)"], &trap)
            trap.fire(recorder)
            return
        }
        if current.isTerminal {
            var trap = PendingTrap()
            report(
                .requestAfterTermination, "\(name) was asked for \(more) after it \(Self.describe(current))",
                details: ["demand": "\(more)"], &trap)
            trap.fire(recorder)
            return
        }
        guard options.tracksDemand else { return }
        addDemand(more.stored)
    }

    @inline(__always)
    private func addDemand(_ amount: Int) {
        guard amount > 0 else { return }
        var current = demand.load(ordering: .relaxed)
        while current != Int.max {
            let (sum, overflow) = current.addingReportingOverflow(amount)
            let next = overflow || amount == Int.max ? Int.max : sum
            let (exchanged, original) = demand.weakCompareExchange(expected: current, desired: next, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }

    // MARK: Values

    /// A value is about to be delivered downstream. Checks grammar, demand, serial delivery
    /// and the contract; records findings for violations; never blocks.
    @inline(__always)
    @usableFromInline package final func willDeliverValue() -> Delivery {
        let me = currentThreadToken()
        let other = serial.claim(me)
        // The common case, with nothing to report: claimed, active, no contract, demand left.
        if other == 0, contract == nil, phase.load(ordering: .relaxed) == State.active.rawValue,
            !options.tracksDemand || takeDemand()
        {
            values.store(values.load(ordering: .relaxed) + 1, ordering: .relaxed)
            return Delivery(claim: .owner, previousTest: enterTest())
        }
        return willDeliverValueChecked(me: me, other: other)
    }

    /// ``willDeliverValue()`` when something may be reported: a collision, a stream that is
    /// not active, no demand left, or a contract to check.
    @inline(never)
    private func willDeliverValueChecked(me: UInt64, other: UInt64) -> Delivery {
        var trap = PendingTrap()
        let claim = claimResult(me: me, other: other, event: "a value", &trap)
        let current = State(rawValue: phase.load(ordering: .relaxed)) ?? .active
        if current != .active {
            reportValueOutsideActive(current, &trap)
        } else if options.tracksDemand {
            consumeDemand(&trap)
        }
        let count: Int
        if claim == .concurrent {
            count = values.wrappingAdd(1, ordering: .relaxed).newValue
        } else {
            count = values.load(ordering: .relaxed) + 1
            values.store(count, ordering: .relaxed)
        }
        if let contract {
            checkValue(count: count, contract: contract, &trap)
        }
        let delivery = Delivery(claim: claim, previousTest: enterTest())
        trap.fire(recorder)
        return delivery
    }

    /// The downstream returned from a value; `additionalDemand` is what it asked for in return.
    @inline(__always)
    @usableFromInline package final func didDeliverValue(_ delivery: Delivery, additionalDemand: StreamDemand = .none) {
        if options.tracksDemand, case .max(let extra) = additionalDemand, extra == 0 {
            // Nothing more requested: the common bounded case.
        } else if options.tracksDemand {
            addDemand(additionalDemand.stored)
        }
        release(delivery, afterValue: true)
    }

    /// Takes one from the outstanding demand; `false` (taking nothing) when none is left.
    @inline(__always)
    private func takeDemand() -> Bool {
        var current = demand.load(ordering: .relaxed)
        while current != Int.max {
            if current <= 0 {
                return false
            }
            let (exchanged, original) = demand.weakCompareExchange(
                expected: current, desired: current - 1, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
        return true
    }

    @inline(__always)
    private func consumeDemand(_ trap: inout PendingTrap) {
        var current = demand.load(ordering: .relaxed)
        while current != Int.max {
            if current <= 0 {
                report(
                    .demandExceeded,
                    "\(name) delivered a value nobody requested (value \(values.load(ordering: .relaxed) + 1)); publishers must not exceed demand (Reactive Streams 1.1)",
                    details: ["outstandingDemand": "\(current)"], &trap)
                return
            }
            let (exchanged, original) = demand.weakCompareExchange(
                expected: current, desired: current - 1, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }

    private func reportValueOutsideActive(_ state: State, _ trap: inout PendingTrap) {
        switch state {
        case .awaitingSubscription:
            report(
                .eventBeforeSubscription, "\(name) delivered a value before its subscription (Reactive Streams 1.9)",
                &trap)
        case .finished, .failed:
            report(
                .valueAfterTermination,
                "\(name) delivered a value after it \(Self.describe(state)); the grammar is next* (finished | failure)",
                details: ["state": "\(state)"], &trap)
        case .cancelled:
            report(
                .valueAfterCancel,
                "\(name) delivered a value after it was cancelled (legal while in flight, Reactive Streams 1.8)", &trap)
        case .active:
            break
        }
    }

    private func checkValue(count: Int, contract: StreamContract, _ trap: inout PendingTrap) {
        if let range = contract.values, count > range.upperBound {
            report(
                .contractViolation,
                "\(name) delivered value \(count) but its contract allows at most \(range.upperBound)",
                details: [
                    "rule": "values", "expected": "\(range)", "actual": "\(count)", "contract": contract.description,
                ],
                &trap)
        }
        if let delivery = contract.delivery, !delivery.isSatisfied() {
            report(
                .wrongThread, "\(name) delivered a value off the \(delivery)",
                details: ["expected": delivery.description, "event": "value"], &trap)
        }
    }

    // MARK: Termination and cancel

    /// A finished (`failure == nil`) or failure event is about to be delivered downstream.
    ///
    /// - Parameter failure: A description of the error, or `nil` for normal completion.
    @usableFromInline package final func willTerminate(failure: String?) -> Delivery {
        var trap = PendingTrap()
        let claim = claimDelivery(event: failure == nil ? "completion" : "a failure", &trap)
        let target: State = failure == nil ? .finished : .failed
        var current = phase.load(ordering: .relaxed)
        while true {
            let state = State(rawValue: current) ?? .active
            if state.isTerminal {
                report(
                    .duplicateTermination,
                    "\(name) \(failure == nil ? "finished" : "failed") again after it \(Self.describe(state)); at most one terminal event is allowed",
                    details: ["state": "\(state)", "event": "\(target)"], &trap)
                break
            }
            if state == .cancelled {
                // Completion racing a cancel is legal; nothing to check.
                break
            }
            let (exchanged, original) = phase.weakCompareExchange(
                expected: current, desired: target.rawValue, ordering: .acquiringAndReleasing)
            if !exchanged {
                current = original
                continue
            }
            if state == .awaitingSubscription {
                report(
                    .eventBeforeSubscription,
                    "\(name) \(failure == nil ? "finished" : "failed") before its subscription (Reactive Streams 1.9)",
                    &trap)
            }
            unregister()
            if let contract {
                checkTermination(target, failure: failure, contract: contract, &trap)
            }
            break
        }
        let delivery = Delivery(claim: claim, previousTest: enterTest())
        trap.fire(recorder)
        return delivery
    }

    /// The downstream returned from the terminal event.
    @usableFromInline package final func didTerminate(_ delivery: Delivery) {
        release(delivery, afterValue: false)
    }

    private func checkTermination(_ state: State, failure: String?, contract: StreamContract, _ trap: inout PendingTrap)
    {
        let count = values.load(ordering: .relaxed)
        if contract.termination == .forbidden {
            report(
                .contractViolation,
                "\(name) \(state == .failed ? "failed" : "finished") but its contract says it must not terminate",
                details: [
                    "rule": "termination", "expected": "never terminates", "actual": "\(state)",
                    "contract": contract.description,
                ],
                &trap)
        }
        if state == .failed, !contract.allowsFailure {
            report(
                .contractViolation, "\(name) failed (\(failure ?? "error")) but its contract does not allow failure",
                details: [
                    "rule": "failure", "expected": "no failure", "actual": failure ?? "failure",
                    "contract": contract.description,
                ],
                &trap)
        }
        if state == .finished, let range = contract.values, count < range.lowerBound {
            report(
                .contractViolation,
                "\(name) finished after \(count) value(s) but its contract requires at least \(range.lowerBound)",
                details: [
                    "rule": "values", "expected": "\(range)", "actual": "\(count)", "contract": contract.description,
                ],
                &trap)
        }
        if let delivery = contract.delivery, !delivery.isSatisfied() {
            report(
                .wrongThread,
                "\(name) delivered its \(state == .failed ? "failure" : "completion") off the \(delivery)",
                details: ["expected": delivery.description, "event": "\(state)"], &trap)
        }
    }

    /// The subscriber cancelled.
    ///
    /// - Parameter checkPremature: look for a cancel caused by releasing the cancellable
    ///   before any value (see ``Options/prematureCancellationMarkers``).
    @usableFromInline package final func cancelled(checkPremature: Bool = true) {
        var current = phase.load(ordering: .relaxed)
        while true {
            let state = State(rawValue: current) ?? .active
            guard state == .active || state == .awaitingSubscription else { return }
            let (exchanged, original) = phase.weakCompareExchange(
                expected: current, desired: State.cancelled.rawValue, ordering: .acquiringAndReleasing)
            if exchanged { break }
            current = original
        }
        unregister()
        if checkPremature, allocationStack.isCaptured, !options.prematureCancellationMarkers.isEmpty,
            values.load(ordering: .relaxed) == 0
        {
            recorder.noteCancelBeforeAnyValue(
                label: label, allocationStack: allocationStack, test: test,
                markers: options.prematureCancellationMarkers)
        }
    }

    // MARK: Serial delivery

    @inline(__always)
    private func claimDelivery(event: String, _ trap: inout PendingTrap) -> Delivery.Claim {
        let me = currentThreadToken()
        return claimResult(me: me, other: serial.claim(me), event: event, &trap)
    }

    /// What claiming the stream found: `other` is the thread that already held it (0: none).
    @inline(__always)
    private func claimResult(me: UInt64, other: UInt64, event: String, _ trap: inout PendingTrap) -> Delivery.Claim {
        if other == 0 {
            return .owner
        }
        if other == me {
            report(
                .reentrantDelivery,
                "\(name) received \(event) while it was still handling a previous one on the same thread (re-entrant delivery)",
                details: ["event": event], &trap)
            return .reentrant
        }
        reportConcurrentDelivery(event: event, other: other, &trap)
        return .concurrent
    }

    /// The slow path of a collision: ask the delivering thread for its side first, so that it
    /// can give it when its delivery ends, then record the finding (see ``SerialDelivery``).
    @inline(never)
    private func reportConcurrentDelivery(event: String, other: UInt64, _ trap: inout PendingTrap) {
        let requested = serial.collided(with: other)
        let id = report(
            .concurrentDelivery,
            "\(name) received \(event) on one thread while another thread was still delivering to it; signals must be serial (Reactive Streams 1.3)",
            details: ["event": event], otherThread: .other(id: other), &trap)
        if requested {
            serial.post(finding: id, owner: other, recorder: recorder)
        }
    }

    @inline(__always)
    private func release(_ delivery: Delivery, afterValue: Bool) {
        restoreTest(delivery.previousTest)
        guard delivery.claim == .owner else { return }
        serial.release(afterValue: afterValue, recorder: recorder)
    }

    @inline(__always)
    private func enterTest() -> UInt32 {
        guard test.isKnown else { return 0 }
        let previous = rdiag_current_test_get()
        rdiag_current_test_set(test.rawValue)
        return previous
    }

    @inline(__always)
    private func restoreTest(_ previous: UInt32) {
        guard test.isKnown else { return }
        rdiag_current_test_set(previous)
    }

    // MARK: Findings

    /// Reports a finding to the recorder; a trap it asks for waits in `trap` until the event's
    /// bookkeeping is done.
    @discardableResult
    @inline(__always)
    private func report(
        _ kind: FindingKind, _ message: String, details: [String: String] = [:], otherThread: ThreadInfo? = nil,
        _ trap: inout PendingTrap
    ) -> Int? {
        let recorded = reportDraft(kind, message, details: details, otherThread: otherThread)
        trap.note(recorded)
        return recorded?.id
    }

    @inline(never)
    private func reportDraft(
        _ kind: FindingKind, _ message: String, details: [String: String], otherThread: ThreadInfo?
    ) -> RecordedFinding? {
        recorder.report(
            FindingDraft(
                kind: kind, message: message, label: label.name, resourceKind: options.resourceKind, test: test,
                allocationStack: allocationStack, otherThread: otherThread, details: details))
    }

    private static func describe(_ state: State) -> String {
        switch state {
        case .awaitingSubscription: return "was awaiting its subscription"
        case .active: return "was active"
        case .finished: return "finished"
        case .failed: return "failed"
        case .cancelled: return "was cancelled"
        }
    }
}

/// A trap a finding asked for, held until the monitor or probe is done with the event: one
/// word, so the common path (no finding) keeps it in a register.
struct PendingTrap {
    /// The id of the first finding that asked for a trap; -1 for none.
    private var findingID = -1

    @inline(__always)
    mutating func note(_ recorded: RecordedFinding?) {
        if findingID < 0, let recorded, recorded.traps {
            findingID = recorded.id
        }
    }

    /// Traps (through the recorder) if a finding asked for it.
    @inline(__always)
    func fire(_ recorder: any DiagnosticsRecorder) {
        if findingID >= 0 {
            recorder.trap(RecordedFinding(id: findingID, traps: true))
        }
    }
}
