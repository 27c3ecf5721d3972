import CReactiveDiagnostics
package import Dispatch

/// The libdispatch queue behind a `DispatchQueue`, to which a diagnostic scheduler hands its
/// actions as a function and a context (`dispatch_async_f`) instead of a block.
///
/// Handing a Swift closure to `DispatchQueue.async` makes a block of it on every call (an
/// allocation, and a block release after the run). A scheduled action is an object already:
/// given to the queue as its own context, it runs with nothing made for it. The semantics are
/// `async`'s without a group, QoS or flags: the same queue, the same order, the caller's QoS
/// propagated the same way.
///
/// On Linux a `DispatchQueue` wraps its libdispatch object in a stored property that Dispatch
/// does not make public. Where that object is, is checked once, against a queue of our own:
/// the word read from it must be the queue that libdispatch says is running a block submitted
/// to it (`dispatch_get_current_queue`). If the check fails (another Dispatch), or libdispatch's
/// function entry points are missing, ``init(_:)`` returns `nil` and the scheduler keeps
/// handing closures to `DispatchQueue` as before. On Apple platforms a `DispatchQueue` *is*
/// its libdispatch object.
///
/// ```swift
/// if let direct = DirectDispatch(queue) {
///     direct.async(probe.willSchedule(running: work))
/// } else {
///     queue.async(execute: probe.willSchedule(running: work).run)
/// }
/// ```
@usableFromInline package struct DirectDispatch: @unchecked Sendable {
    // Unchecked: the pointer is the queue's libdispatch object, which libdispatch makes safe
    // to submit to from any thread; `queue` keeps it alive.
    private let object: UnsafeMutableRawPointer
    /// The queue, kept so that its object lives as long as this.
    package let queue: DispatchQueue

    /// The direct path to `queue`, or `nil` where it cannot be found safely (see above).
    package init?(_ queue: DispatchQueue) {
        guard let offset = Self.objectOffset else { return nil }
        self.queue = queue
        object = Self.object(of: queue, offset: offset)
    }

    /// Submits `action` to the queue, to be run (``ScheduledAction/run()``) as `async` would
    /// run a closure. The queue holds the action until then.
    @inline(__always)
    @usableFromInline package func async(_ action: ScheduledAction) {
        rdiag_dispatch_async_f(object, Unmanaged.passRetained(action).toOpaque(), Self.runAction)
    }

    private static let runAction: @convention(c) (UnsafeMutableRawPointer?) -> Void = { context in
        Unmanaged<ScheduledAction>.fromOpaque(context.unsafelyUnwrapped).takeRetainedValue().run()
    }

    /// Where a `DispatchQueue` keeps its libdispatch object: 0 where it is the object, the
    /// byte offset of the stored property on Linux; `nil` where the check failed.
    static let objectOffset: Int? = {
        guard rdiag_dispatch_direct_available() != 0 else { return nil }
        #if canImport(Darwin)
        let offset = 0
        #else
        // The first stored property, after the object's header (metadata and reference counts).
        let offset = 2 * MemoryLayout<UnsafeRawPointer>.size
        #endif
        let probe = DispatchQueue(label: "ReactiveDiagnostics.DirectDispatch.check")
        let running = probe.sync { UInt(bitPattern: rdiag_dispatch_current_queue()) }
        return running != 0 && UInt(bitPattern: object(of: probe, offset: offset)) == running ? offset : nil
    }()

    private static func object(of queue: DispatchQueue, offset: Int) -> UnsafeMutableRawPointer {
        let instance = Unmanaged.passUnretained(queue).toOpaque()
        guard offset != 0 else { return instance }
        return withExtendedLifetime(queue) {
            instance.load(fromByteOffset: offset, as: UnsafeMutableRawPointer.self)
        }
    }
}
