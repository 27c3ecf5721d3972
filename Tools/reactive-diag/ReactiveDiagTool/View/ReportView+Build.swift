import Foundation
import ReactiveDiagnosticsReport

extension ReportView {
    /// Builds the view of `report`: findings filtered by `filter` and grouped by fingerprint,
    /// the summary, and every stack referred to. Linear in the number of findings, plus
    /// sorting the groups.
    static func build(report: DiagnosticsReport, inputs: [String], filter: FindingFilter) -> ReportView {
        let index = ReportIndex(report)
        var shown: [ReportFinding] = []
        var totals = FindingTotals(shown: SeverityCounts(), byKind: [], groups: 0, suppressed: 0, filteredOut: 0)
        var byKind: [String: SeverityCounts] = [:]
        for finding in report.findings {
            if filter.matches(finding) {
                shown.append(finding)
                totals.shown.add(finding.severity)
                byKind[finding.kind, default: SeverityCounts()].add(finding.severity)
            } else if !finding.isActive && filter.matchesIgnoringSuppression(finding) {
                totals.suppressed += 1
            } else if finding.isActive {
                totals.filteredOut += 1
            }
        }
        totals.byKind = byKind.map { KindCount(kind: $0.key, counts: $0.value) }.sorted {
            $0.counts.total != $1.counts.total ? $0.counts.total > $1.counts.total : $0.kind < $1.kind
        }
        let groups = FindingGroup.group(shown)
        totals.groups = groups.count

        var stacks = StackTable(index: index)
        let groupViews = groups.map { group in GroupView(group, stacks: &stacks) }
        let live = LiveView(report.ledger, stacks: &stacks)
        let summary = SummaryView(
            findings: totals, live: live, schedulers: report.schedulers.sorted { $0.label < $1.label })
        return ReportView(
            formatVersion: currentFormatVersion, generator: "reactive-diag \(ReactiveDiag.version)",
            inputs: inputs, run: RunView(report), filter: FilterView(filter), summary: summary,
            groups: groupViews, stacks: stacks.views)
    }

    /// The stack with `id`. O(log n).
    func stack(_ id: Int) -> StackView? {
        var low = 0
        var high = stacks.count
        while low < high {
            let middle = (low + high) / 2
            if stacks[middle].id < id { low = middle + 1 } else { high = middle }
        }
        return low < stacks.count && stacks[low].id == id ? stacks[low] : nil
    }
}

/// Collects the stacks a view refers to, converted once each.
struct StackTable {
    let index: ReportIndex
    private var converted: [Int: StackView] = [:]

    init(index: ReportIndex) {
        self.index = index
    }

    /// The view of stack `id`, converting it on first use; `nil` for an unknown id.
    mutating func view(_ id: Int) -> StackView? {
        if let view = converted[id] { return view }
        guard let stack = index.stack(id) else { return nil }
        let frames = stack.frames.enumerated().map { position, frame in
            FrameView(index: position, frame: frame, image: index.image(of: frame))
        }
        let view = StackView(
            id: id, droppedFrames: stack.droppedFrames, frames: frames,
            lines: StackLineView.lines(for: frames, droppedFrames: stack.droppedFrames))
        converted[id] = view
        return view
    }

    /// Every stack converted, by id.
    var views: [StackView] {
        converted.values.sorted { $0.id < $1.id }
    }
}

extension GroupView {
    init(_ group: FindingGroup, stacks: inout StackTable) {
        let finding = group.representative
        var references: [StackReference] = []
        for (role, id) in finding.stackReferences {
            guard stacks.view(id) != nil else { continue }
            references.append(
                StackReference(
                    role: role.rawValue, stack: id, thread: finding.thread(of: role).map(ThreadView.init),
                    heading: FindingText.stackHeading(role, of: finding)))
        }
        let index = stacks.index
        let place = FindingPlacement.place(of: finding, stacks: index.stack)
        let frame = place.flatMap { place in stacks.view(place.stack).map { $0.frames[place.index] } }
        self.init(
            fingerprint: group.fingerprint, kind: group.kind, severity: group.severity.rawValue, count: group.count,
            message: finding.message, labels: group.labels, tests: group.tests, resourceKind: finding.resourceKind,
            suppressedBy: finding.suppressedBy, findingIDs: group.findingIDs, details: finding.details,
            location: frame?.oneLine, culprit: place.map { FrameReference(stack: $0.stack, frame: $0.index) },
            source: nil, stacks: references,
            retainPath: finding.retainPath.map {
                RetainPathView(verdict: $0.verdict.rawValue, summary: $0.summary, lines: $0.textLines())
            })
        let chain = FindingText.chainLines(
            of: finding, stack: index.stack, imagePath: { index.image($0)?.path }, detail: .viewer)
        self.chain = chain.isEmpty ? nil : chain
    }
}

extension FindingGroup {
    /// The ids of the findings, ascending.
    var findingIDs: [Int] {
        findings.map(\.id)
    }
}

extension ThreadView {
    init(_ thread: ReportThread) {
        self.init(id: thread.id, name: thread.name, queue: thread.queue, isMainQueue: thread.isMainQueue)
    }
}

extension LiveView {
    init(_ ledger: LedgerSummary, stacks: inout StackTable) {
        let kinds = ledger.kinds.sorted { $0.kind < $1.kind }
        let siteTotal = ledger.liveAtEnd.reduce(0) { $0 + $1.count }
        var sites: [LiveSiteView] = []
        for site in ledger.liveAtEnd {
            let stack = site.stack.flatMap { stacks.view($0) }
            sites.append(
                LiveSiteView(
                    kind: site.kind, label: site.label, count: site.count, tests: site.tests.sorted(),
                    stack: stack?.id, location: stack?.focusFrame?.oneLine))
        }
        sites.sort { lhs, rhs in
            if lhs.count != rhs.count { return lhs.count > rhs.count }
            if lhs.kind != rhs.kind { return lhs.kind < rhs.kind }
            if lhs.label != rhs.label { return lhs.label < rhs.label }
            return (lhs.stack ?? -1) < (rhs.stack ?? -1)
        }
        self.init(
            total: kinds.isEmpty ? siteTotal : kinds.reduce(0) { $0 + $1.live },
            registered: kinds.reduce(0) { $0 + $1.registered }, byKind: kinds, sites: sites)
    }
}

extension RunView {
    init(_ report: DiagnosticsReport) {
        let run = report.run
        self.init(
            processName: run.processName, processCount: run.processCount, completeness: run.completeness.rawValue,
            platform: run.platform, toolchain: run.toolchain, startTime: ReportDates.format(run.startTime),
            endTime: ReportDates.format(run.endTime),
            durationSeconds: ((run.endTime.timeIntervalSince(run.startTime)) * 1000).rounded() / 1000,
            tests: run.tests, droppedFindings: report.droppedFindings, sourceLines: report.sourceLines)
    }
}

extension FilterView {
    init(_ filter: FindingFilter) {
        self.init(
            kinds: filter.kinds.sorted(), tests: filter.tests, labels: filter.labels,
            minimumSeverity: filter.minimumSeverity.rawValue, includeSuppressed: filter.includeSuppressed)
    }
}
