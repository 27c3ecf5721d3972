/// The object every case hides somewhere in a captured value: the walker must find each
/// strong reference to it, and report weak and unowned ones as such.
public final class Marker: Hashable, @unchecked Sendable {
    // Unchecked: immutable.
    public let id: Int

    public init(id: Int = 0) {
        self.id = id
    }

    public static func == (lhs: Marker, rhs: Marker) -> Bool {
        lhs === rhs
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}

/// What cases store their closure in: the object the walk starts from.
public final class Holder {
    public var closure: () -> Void
    /// Set by a case whose closure keeps itself alive (a cycle): the check raises it and runs
    /// the closure once more, which then lets itself go (LeakSanitizer sees no cycle left).
    public var cycleRelease: CycleRelease?

    public init(_ closure: @escaping () -> Void, cycleRelease: CycleRelease? = nil) {
        self.closure = closure
        self.cycleRelease = cycleRelease
    }
}

/// Tells a closure that captures itself to let itself go the next time it runs.
public final class CycleRelease: @unchecked Sendable {
    // Unchecked: set and read on the thread that checks the case.
    public var isRaised = false

    public init() {}
}

/// Keeps a value alive and used, so the optimizer cannot drop it from a closure's captures.
@inline(never)
public func use(_ value: Any) {
    blackHoleSink = ObjectIdentifier(type(of: value)).hashValue
}

nonisolated(unsafe) var blackHoleSink = 0
