/// The handle of one registered resource; pass it back to `ResourceLedger/unregister(_:)`.
///
/// A token remembers its slot's generation, so unregistering twice (or with a token whose
/// slot was reused) is detected and ignored instead of corrupting the counts.
///
/// ```swift
/// let token = engine.track(.observer, label: "keyboard")   // live from here, with this stack
/// // …
/// engine.untrack(token)                                   // ended: no leak
/// ```
public struct ResourceToken: Hashable, Sendable {
    /// Packed generation (16 bits), slot index (40 bits) and shard (8 bits).
    public let rawValue: UInt64

    init(shard: Int, index: Int, generation: UInt16) {
        rawValue = UInt64(generation) << 48 | UInt64(index) << 8 | UInt64(shard)
    }

    /// Wraps a raw value (a ledger's).
    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    var shard: Int { Int(rawValue & 0xff) }
    var index: Int { Int((rawValue >> 8) & 0xff_ffff_ffff) }
    var generation: UInt16 { UInt16(truncatingIfNeeded: rawValue >> 48) }

    /// A token that refers to nothing (tracking disabled).
    public static let none = ResourceToken(rawValue: UInt64.max)

    /// Whether this token refers to a registered resource.
    public var isValid: Bool { rawValue != UInt64.max }
}

/// One live resource, as returned by ledger queries.
///
/// ```swift
/// for resource in engine.liveResources(of: checkpoint) {
///     print(resource.kind, resource.label, engine.symbolize(resource.stack).userFrames.first?.displayName ?? "?")
/// }
/// ```
public struct LiveResource: Sendable, Hashable {
    /// Its token.
    public var token: ResourceToken
    /// Its kind.
    public var kind: ResourceKind
    /// Its label.
    public var label: DiagnosticLabel
    /// Where it was allocated.
    public var stack: StackID
    /// The test that allocated it.
    public var test: TestIdentity
    /// The ledger epoch at allocation (see `ResourceLedger.advanceEpoch()`).
    public var epoch: UInt32
}
