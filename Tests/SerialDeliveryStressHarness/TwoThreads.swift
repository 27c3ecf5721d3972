import Dispatch
import Foundation
import Synchronization

/// Calls `body` for `count` values on each of two threads started together; returns whether
/// the two threads' calls ever overlapped (counted around each call, outside the diagnostics,
/// so the count is the ground truth a finding is checked against). Values are numbered
/// `0..<2·count`, thread by thread.
///
/// ```swift
/// let overlapped = callFromTwoThreads(10_000) { subject.send($0) }
/// ```
public func callFromTwoThreads(_ count: Int, _ body: @escaping (Int) -> Void) -> Bool {
    let body = UncheckedSendable(body)
    let ready = Atomic<Int>(0)
    let overlap = Overlap()
    let group = DispatchGroup()
    for thread in 0..<2 {
        group.enter()
        Thread {
            ready.add(1, ordering: .relaxed)
            while ready.load(ordering: .relaxed) < 2 {}
            for index in 0..<count {
                overlap.around { body.value(thread * count + index) }
            }
            group.leave()
        }.start()
    }
    group.wait()
    return overlap.happened
}

/// Whether two threads were ever inside the same region at once.
///
/// ```swift
/// let inSubscriber = Overlap()
/// let cancellable = publisher.sink { _ in inSubscriber.around {} }
/// ```
public final class Overlap: Sendable {
    private let inside = Atomic<Int>(0)
    private let seen = Atomic<Bool>(false)

    /// Nothing seen yet.
    public init() {}

    /// Runs `body`, noting whether another thread was inside meanwhile.
    @inline(__always)
    public func around<Result>(_ body: () -> Result) -> Result {
        if inside.add(1, ordering: .relaxed).newValue > 1 {
            seen.store(true, ordering: .relaxed)
        }
        defer { inside.subtract(1, ordering: .relaxed) }
        return body()
    }

    /// Whether two threads were inside at once.
    public var happened: Bool {
        seen.load(ordering: .relaxed)
    }
}

/// A value handed to another thread by a test that orders its uses itself.
public struct UncheckedSendable<Value>: @unchecked Sendable {
    /// The value.
    public var value: Value

    /// Wraps `value`.
    public init(_ value: Value) { self.value = value }
}
