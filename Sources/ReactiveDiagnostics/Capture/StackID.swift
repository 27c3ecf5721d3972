/// A small id for an interned call stack: identical stacks share one id.
///
/// Ids are cheap to copy and compare; the addresses behind one are read with
/// `StackInterner.addresses(of:)` and symbolized with ``DiagnosticsEngine/symbolize(_:)``.
///
/// ```swift
/// let stack = engine.captureAllocationStack()        // raw addresses, interned: cheap
/// if stack.isCaptured {
///     print(engine.symbolize(stack).userFrames.map(\.displayName))   // symbolized only when shown
/// }
/// ```
public struct StackID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The raw id; 0 means "no stack".
    public let rawValue: UInt32

    /// Wraps a raw id.
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// No stack was captured (stack capture off, or nothing to capture).
    public static let none = StackID(rawValue: 0)

    /// Whether this id refers to a captured stack.
    public var isCaptured: Bool { rawValue != 0 }

    /// Orders ids by their raw value (``none`` first), which keeps report tables in a stable
    /// order.
    public static func < (lhs: StackID, rhs: StackID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `stack#<id>` for a captured stack, `no stack` for ``none``: for debugging output; reports
    /// show the stack's symbolized frames instead.
    public var description: String { isCaptured ? "stack#\(rawValue)" : "no stack" }
}
