import ReactiveDiagnostics

/// One subscriber stage seen by global instrumentation, from its subscribe call on.
final class Stage: @unchecked Sendable {
    // Unchecked: `subscription` is only touched under the stage table's lock; everything
    // else is immutable or Sendable.
    let monitor: StreamMonitor
    let key: StageKey
    let subscriber: WeakObject
    let subscriptionObject: WeakObject
    /// The subscriber is one of the framework's own (an operator's): its requests are the
    /// framework's, not the user's.
    let hasFrameworkSubscriber: Bool
    /// The operator whose own subscriber this stage's is (`FlatMap`), if it is one's.
    let operatorID: OperatorNames.ID
    /// The subscription the stage is linked to (guarded by the table's lock).
    var subscription: SubscriptionKey?

    init(
        monitor: StreamMonitor, key: StageKey, subscriber: WeakObject, subscriptionObject: WeakObject,
        hasFrameworkSubscriber: Bool, operatorID: OperatorNames.ID
    ) {
        self.monitor = monitor
        self.key = key
        self.subscriber = subscriber
        self.subscriptionObject = subscriptionObject
        self.hasFrameworkSubscriber = hasFrameworkSubscriber
        self.operatorID = operatorID
    }

    /// Whether the stream finished or failed (not merely cancelled).
    var hasTerminated: Bool {
        let state = monitor.state
        return state == .finished || state == .failed
    }

    /// Whether the stream finished, failed or was cancelled.
    var isFinished: Bool {
        let state = monitor.state
        return state != .active && state != .awaitingSubscription
    }

    /// Whether the object that identifies the stage is gone: its class subscriber (whose
    /// address a later subscriber may reuse) or, for a value-type subscriber, its class
    /// subscription. No event can reach a stale stage through the hook any more.
    var isStale: Bool {
        subscriber.isGone || (!subscriber.isTracked && subscriptionObject.isGone)
    }

    /// Whether the table may forget the stage: stale, or finished with nothing that could
    /// still tell whether it is alive.
    var isDisposable: Bool {
        isStale || (isFinished && !subscriber.isTracked && !subscriptionObject.isTracked)
    }
}

/// A stage announced by a subscribe call whose subscription has not arrived yet. The
/// allocation stack and test are captured at the subscribe call.
struct PendingStage: Sendable {
    var label: DiagnosticLabel
    var kind: ResourceKind
    let stack: StackID
    let test: TestIdentity
    let subscriber: WeakObject
    let hasFrameworkSubscriber: Bool
    let operatorID: OperatorNames.ID
    let serial: UInt64
}

/// What the stage table holds for one subscriber key.
enum StageSlot: Sendable {
    case pending(PendingStage)
    case active(Stage)
}

/// The stages sharing one subscription object (fused operators such as `map` and `filter`
/// on a subject pass their upstream subscription through, so demand and cancel on it reach
/// all of them).
struct SubscriptionLinks: Sendable {
    var stages: [Stage]

    /// Links `stage`, forgetting the finished stages (they belong to an earlier object at the
    /// same address).
    mutating func add(_ stage: Stage) {
        if !stages.isEmpty, stages.contains(where: \.isFinished) {
            stages.removeAll { $0.isFinished }
        }
        stages.append(stage)
    }
}
