/// How far the engine walks the heap to explain why one leaked subscription is alive.
///
/// The walk runs at the test's checkpoint, only for subscriptions that leaked, and stops at
/// whichever limit comes first; what it found by then is reported, with a note saying which
/// limit stopped it.
///
/// ```swift
/// var configuration = Configuration()
/// configuration.retainPathLimits = RetainPathLimits(objects: 1000, time: .milliseconds(50))
/// ```
public struct RetainPathLimits: Sendable, Equatable {
    /// Objects read at most.
    public var objects: Int
    /// References followed from the subscription at most.
    public var depth: Int
    /// Time spent at most on one subscription.
    public var time: Duration

    /// Creates limits; the defaults suit test suites (a typical cycle is found after a few
    /// dozen objects and well under a millisecond).
    public init(objects: Int = 4000, depth: Int = 32, time: Duration = .seconds(1)) {
        self.objects = objects
        self.depth = depth
        self.time = time
    }
}
