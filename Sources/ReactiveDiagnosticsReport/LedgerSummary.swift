import Foundation

/// Live-resource bookkeeping at the end of a run.
///
/// ```swift
/// let report = try DiagnosticsReport.load(from: URL(fileURLWithPath: "report.json"))
/// for totals in report.ledger.kinds where totals.live > 0 {
///     print(totals.kind, "still alive:", totals.live, "of", totals.registered)
/// }
/// ```
public struct LedgerSummary: Codable, Sendable, Equatable {
    /// Per resource kind: how many were registered, the peak alive at once, and how many
    /// were still alive when the report was written.
    public var kinds: [KindTotals]
    /// What was still alive at the end, grouped by kind, label and allocation site.
    public var liveAtEnd: [LiveSite]

    /// Creates a ledger summary.
    public init(kinds: [KindTotals] = [], liveAtEnd: [LiveSite] = []) {
        self.kinds = kinds
        self.liveAtEnd = liveAtEnd
    }
}

/// Totals for one resource kind.
///
/// ```swift
/// let subscriptions = report.ledger.kinds.first { $0.kind == "subscription" }
/// print(subscriptions?.peak ?? 0, "at most alive at once")
/// ```
public struct KindTotals: Codable, Sendable, Equatable {
    /// The resource kind (`subscription`, `timer`, …).
    public var kind: String
    /// How many were registered over the run.
    public var registered: Int
    /// The most alive at once. Never below the true figure; for scheduled actions and timers,
    /// which the scheduling threads count without reading what every run writes, at most 1/64
    /// above it (exact below 64 alive). Merged reports sum their processes' peaks.
    public var peak: Int
    /// How many were still alive at the end.
    public var live: Int

    /// Creates kind totals.
    public init(kind: String, registered: Int, peak: Int, live: Int) {
        self.kind = kind
        self.registered = registered
        self.peak = peak
        self.live = live
    }
}

/// Live resources sharing kind, label and allocation site.
///
/// ```swift
/// for site in report.ledger.liveAtEnd.prefix(5) {
///     print("\(site.count) × \(site.kind) '\(site.label)'", site.tests.joined(separator: ", "))
/// }
/// ```
public struct LiveSite: Codable, Sendable, Equatable {
    /// The resource kind.
    public var kind: String
    /// The label.
    public var label: String
    /// The allocation stack (id into ``DiagnosticsReport/stacks``), when captured.
    public var stack: Int?
    /// How many are alive.
    public var count: Int
    /// The tests that allocated them, when known.
    public var tests: [String]

    /// Creates a live site.
    public init(kind: String, label: String, stack: Int?, count: Int, tests: [String] = []) {
        self.kind = kind
        self.label = label
        self.stack = stack
        self.count = count
        self.tests = tests
    }
}
