import ReactiveDiagnostics

/// An async sequence that checks and tracks each iteration of the sequence it wraps: made by
/// ``_Concurrency/AsyncSequence/diagnosed(_:contract:expecting:engine:fileID:line:)``.
///
/// Each iteration is a live `ResourceKind.iteration` from its first `next()` until the
/// sequence ends, the iterating task is cancelled or the iterator is released (a `break`),
/// allocated where it is iterated (the chain of async callers up to the `for await` loop): one
/// still alive when its test ends is a `FindingKind.leakedSubscription`. Elements are checked
/// against the contract where they are *received* (the consumer's actor or thread):
///
/// ```swift
/// @MainActor final class FeedModel {
///     var headlines: [String] = []
///     func observe(_ updates: some AsyncSequence<[String], Never>) async {
///         for await headlines in updates.diagnosed("headlines", expecting: .mainQueue) {
///             self.headlines = headlines          // checked: received on the main actor
///         }
///     }
/// }
/// ```
///
/// Also found: `next()` called again after the end (`FindingKind.requestAfterTermination`),
/// a failure a contract does not allow, and, for single-consumer bases such as `AsyncStream`
/// (``SingleConsumerAsyncSequence``), two tasks iterating at once
/// (`FindingKind.concurrentIteration`). Elements and errors pass through unchanged; with the
/// engine disabled when an iteration starts, that iteration only forwards.
///
/// The iterator's methods are inlinable, so that they are specialized for the element type in
/// the caller's module: generic code called across modules would look up type metadata on
/// every element.
public struct DiagnosedAsyncSequence<Base: AsyncSequence>: AsyncSequence {
    /// The wrapped sequence's element.
    public typealias Element = Base.Element
    /// The wrapped sequence's error.
    public typealias Failure = Base.Failure

    /// The wrapped sequence.
    public let base: Base
    @usableFromInline let state: SequenceState

    @usableFromInline
    init(base: Base, state: SequenceState) {
        self.base = base
        self.state = state
    }

    /// An iterator over the wrapped sequence's iterator.
    @inlinable
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), state: state)
    }
}

extension DiagnosedAsyncSequence: Sendable where Base: Sendable {}
