/// An async sequence that must not be iterated by two tasks at once: each element goes to one
/// consumer only, and a consumer left waiting may never resume (`AsyncStream` and
/// `AsyncThrowingStream`: swiftlang/swift#71412).
///
/// A diagnosed sequence whose base conforms reports two tasks iterating it at once as a
/// `FindingKind.concurrentIteration`. Conform your own single-consumer sequences to get
/// the same check:
///
/// ```swift
/// extension MessageChannel: SingleConsumerAsyncSequence {}
/// ```
public protocol SingleConsumerAsyncSequence: AsyncSequence {}

extension AsyncStream: SingleConsumerAsyncSequence {}
extension AsyncThrowingStream: SingleConsumerAsyncSequence {}
