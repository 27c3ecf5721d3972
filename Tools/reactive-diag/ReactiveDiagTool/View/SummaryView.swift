public import ReactiveDiagnosticsReport

/// The summary at the top of a view.
///
/// ```swift
/// let summary = view.summary
/// print(summary.findings.groups, summary.live.total, summary.schedulers.map(\.label))
/// ```
public struct SummaryView: Codable, Sendable, Equatable {
    /// Findings after the filters.
    public var findings: FindingTotals
    /// Live resources at the end of the run (not filtered).
    public var live: LiveView
    /// Every scheduler, by label (not filtered).
    public var schedulers: [SchedulerSummary]
}

/// How many findings the view shows, and how.
///
/// ```swift
/// let totals = view.summary.findings
/// print("\(totals.shown.total) shown, \(totals.suppressed) suppressed, \(totals.filteredOut) filtered out")
/// ```
public struct FindingTotals: Codable, Sendable, Equatable {
    /// Findings shown, per severity.
    public var shown: SeverityCounts
    /// Findings shown, per kind (most frequent first, then by name).
    public var byKind: [KindCount]
    /// Groups (distinct fingerprints) shown.
    public var groups: Int
    /// Suppressed findings that match the other filters: shown only with `--include-suppressed`.
    public var suppressed: Int
    /// Findings the filters hid (suppressed ones not counted).
    public var filteredOut: Int
}

/// Live resources at the end of the run.
///
/// ```swift
/// for kind in view.summary.live.byKind { print(kind.kind, kind.live, kind.peak) }
/// ```
public struct LiveView: Codable, Sendable, Equatable {
    /// Resources still alive.
    public var total: Int
    /// Registered over the run, summed over kinds.
    public var registered: Int
    /// Per resource kind, by name.
    public var byKind: [KindTotals]
    /// Where the live resources were allocated, most first.
    public var sites: [LiveSiteView]
}

/// Live resources sharing kind, label and allocation site.
///
/// ```swift
/// for site in view.summary.live.sites.prefix(3) { print(site.count, site.kind, site.label, site.location ?? "?") }
/// ```
public struct LiveSiteView: Codable, Sendable, Equatable {
    /// The resource kind.
    public var kind: String
    /// The label.
    public var label: String
    /// How many are alive.
    public var count: Int
    /// The tests that allocated them.
    public var tests: [String]
    /// The allocation stack (id into ``ReportView/stacks``).
    public var stack: Int?
    /// The allocation site in one line (`function at file:line`), when the stack has one.
    public var location: String?
}
