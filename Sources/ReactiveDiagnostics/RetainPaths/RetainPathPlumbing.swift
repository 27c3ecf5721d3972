/// The types every subscription of a framework is made of (Combine's subscribers and
/// subscriptions, RxSwift's observers and disposables): a loop through them alone is how a
/// live subscription is built, not a retain cycle. Adapters register their framework's;
/// a user's type that conforms (a hand-written subscriber) counts as plumbing too.
///
/// ```swift
/// RetainPathPlumbing.register { type in type is any Subscriber.Type || type is any Subscription.Type }
/// ```
public enum RetainPathPlumbing {
    private static let predicates = LockedValue([@Sendable (Any.Type) -> Bool]())

    /// Adds a test for plumbing types.
    public static func register(_ isPlumbing: @escaping @Sendable (Any.Type) -> Bool) {
        predicates.withLock { $0.append(isPlumbing) }
    }

    /// Whether any registered test says `type` is plumbing.
    public static func contains(_ type: Any.Type) -> Bool {
        let tests = predicates.withLock { $0 }
        return tests.contains { $0(type) }
    }
}
