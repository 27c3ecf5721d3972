import Foundation

/// One stage of the chain a leak finding stands for: every stage of a leaked chain is alive
/// because the chain's subscriber is, so the engine reports one finding per chain and keeps
/// each stage here, upstream first (``ReportFinding/chain``).
///
/// ```swift
/// for stage in finding.chain ?? [] {
///     let line = stage.allocationStack.flatMap { report.stack(id: $0)?.firstUserFrame }
///     print(stage.name, stage.isCause ? "(the cause)" : "", line?.displayLocation ?? "")
/// }
/// ```
public struct ReportChainStage: Codable, Sendable, Hashable {
    /// The stage's label: the publisher it subscribed to (`Map<PassthroughSubject<Int, Never>, Int>`),
    /// a scheduler's for a timer or action the chain scheduled, or a label given by hand.
    public var label: String?
    /// Its resource kind (`subscription`, `timer`, `scheduledAction`, …).
    public var resourceKind: String
    /// Where it was allocated (an id into ``DiagnosticsReport/stacks``).
    public var allocationStack: Int?
    /// The fingerprint it had as a finding of its own, before chains were folded (what a
    /// baseline written then holds).
    public var fingerprint: String
    /// For an operator's inner subscription (a `flatMap`'s inner publisher), the operator that
    /// subscribed it (`FlatMap`).
    public var innerOf: String?
    /// Whether this stage keeps the chain alive on its own: an inner publisher that never
    /// completes after the chain's source finished, or a `Future` whose promise is never called.
    public var isCause: Bool

    /// Creates a stage.
    public init(
        label: String?, resourceKind: String, allocationStack: Int?, fingerprint: String, innerOf: String? = nil,
        isCause: Bool = false
    ) {
        self.label = label
        self.resourceKind = resourceKind
        self.allocationStack = allocationStack
        self.fingerprint = fingerprint
        self.innerOf = innerOf
        self.isCause = isCause
    }

    /// How the stage is listed: its label, its kind when it is no subscription
    /// (`ticker (timer)`), and the operator of an inner subscription
    /// (`Empty<Int, Never> (inner of FlatMap)`).
    public var name: String {
        Self.name(label: label, resourceKind: resourceKind, innerOf: innerOf)
    }

    /// The one rule for how a stage is listed, which the engine also writes into a finding's
    /// `details["stages"]`.
    ///
    /// ```swift
    /// ReportChainStage.name(label: "ticker", resourceKind: "timer", innerOf: nil)   // "ticker (timer)"
    /// ```
    public static func name(label: String?, resourceKind: String, innerOf: String?) -> String {
        var name = label ?? resourceKind
        if resourceKind != "subscription", label != nil {
            name += " (\(resourceKind))"
        }
        if let innerOf, !innerOf.isEmpty {
            name += " (inner of \(innerOf))"
        }
        return name
    }
}
