import _ReactiveDiagnosticsSupport
/// The types every subscription of a framework is made of (Combine's subscribers and
/// subscriptions, RxSwift's observers and disposables): a loop through them alone is how a
/// live subscription is built, not a retain cycle. Adapters register their framework's;
/// a user's type that conforms (a hand-written subscriber) counts as plumbing too. Adapters in
/// other packages register through ``DiagnosticsEngine/registerRetainPathPlumbing(_:)``.
///
/// ```swift
/// RetainPathPlumbing.register { type in type is any Subscriber.Type || type is any Subscription.Type }
/// ```
package enum RetainPathPlumbing {
    private static let predicates = LockedValue([@Sendable (Any.Type) -> Bool]())

    /// Adds a test for plumbing types.
    package static func register(_ isPlumbing: @escaping @Sendable (Any.Type) -> Bool) {
        predicates.withLock { $0.append(isPlumbing) }
    }

    /// Whether any registered test says `type` is plumbing.
    package static func contains(_ type: Any.Type) -> Bool {
        let tests = predicates.withLock { $0 }
        return tests.contains { $0(type) }
    }
}
