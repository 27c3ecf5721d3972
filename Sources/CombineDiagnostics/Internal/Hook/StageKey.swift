import OpenCombineShim

/// Identifies one subscriber stage for global instrumentation: the subscriber's type and its
/// `combineIdentifier`.
///
/// The type matters: several OpenCombine subscribers that live at once share one identifier
/// (`Concatenate`'s prefix and suffix subscribers, `Catch`'s, `prefix(untilOutputFrom:)`'s
/// trigger), and a class's identifier is its address, which a later object may reuse.
struct StageKey: Hashable, @unchecked Sendable {
    // Unchecked: CombineIdentifier is plain data that OpenCombine does not mark Sendable.
    let type: ObjectIdentifier
    let id: CombineIdentifier

    init<S: Subscriber>(_ subscriber: S) {
        type = ObjectIdentifier(S.self)
        id = subscriber.combineIdentifier
    }
}

/// Identifies one subscription object the same way (type and `combineIdentifier`).
struct SubscriptionKey: Hashable, @unchecked Sendable {
    // Unchecked: see StageKey.
    let type: ObjectIdentifier
    let id: CombineIdentifier

    init(_ subscription: any Subscription) {
        type = ObjectIdentifier(Swift.type(of: subscription))
        id = subscription.combineIdentifier
    }
}
