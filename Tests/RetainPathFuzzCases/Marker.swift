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

    public init(_ closure: @escaping () -> Void) {
        self.closure = closure
    }
}

/// Keeps a value alive and used, so the optimizer cannot drop it from a closure's captures.
@inline(never)
public func use(_ value: Any) {
    blackHoleSink = ObjectIdentifier(type(of: value)).hashValue
}

nonisolated(unsafe) var blackHoleSink = 0
