/// One stage of the chain a leak finding stands for (see ``Finding/chain``): every stage of a
/// leaked chain is alive because the chain's subscriber is, so the engine records one finding
/// per chain and keeps each stage, upstream first, with its own allocation stack.
///
/// ```swift
/// for stage in finding.chain where stage.isCause {
///     print("kept alive by", stage.label ?? "?", engine.symbolize(stage.allocationStack))
/// }
/// ```
public struct FindingStage: Sendable, Hashable {
    /// Its label (the publisher it subscribed to, or a scheduler's).
    public var label: String?
    /// Its kind of resource.
    public var resourceKind: ResourceKind
    /// Where it was allocated.
    public var allocationStack: StackID
    /// The fingerprint it would have as a finding of its own (what a baseline written before
    /// chains were folded holds).
    public var fingerprint: String
    /// For an operator's inner subscription (a `flatMap`'s inner publisher), the operator.
    public var innerOf: String?
    /// Whether it keeps the chain alive on its own (the finding's `details["cause"]`).
    public var isCause: Bool

    /// Creates a stage.
    public init(
        label: String?, resourceKind: ResourceKind, allocationStack: StackID, fingerprint: String,
        innerOf: String? = nil, isCause: Bool = false
    ) {
        self.label = label
        self.resourceKind = resourceKind
        self.allocationStack = allocationStack
        self.fingerprint = fingerprint
        self.innerOf = innerOf
        self.isCause = isCause
    }
}
