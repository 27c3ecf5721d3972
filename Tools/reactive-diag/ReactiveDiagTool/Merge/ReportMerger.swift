import ReactiveDiagnosticsReport

/// Merges the reports of parallel test processes or CI shards into one.
///
/// - Images are de-duplicated by path and build id, stacks by their frames (a frame with an
///   image and an offset is identified by those, not by its raw address, so the same code in
///   two processes with different load addresses is one stack).
/// - Findings are concatenated in input order, then by id, and renumbered from 1.
/// - Ledger kinds are summed: registered and live exactly; `peak` is the sum of the peaks, an
///   upper bound, since the processes' peaks need not have coincided.
/// - Live sites with the same kind, label and stack are one site with the counts summed.
/// - Schedulers with the same label are one scheduler: counts summed, histograms merged
///   bucket by bucket (see ``LatencyMerge``).
/// - `run` is the first report's, with the earliest start, the latest end, the tests of all
///   reports in order, `processCount` summed and `completeness` `merged`.
///
/// The result depends only on the reports and their order.
///
/// ```swift
/// let merged = ReportMerger.merge([shard1, shard2])
/// assert(merged.run.completeness == .merged && merged.validationProblem() == nil)
/// ```
enum ReportMerger {
    /// Merges `reports` (at least one) in order.
    static func merge(_ reports: [DiagnosticsReport]) -> DiagnosticsReport {
        precondition(!reports.isEmpty, "ReportMerger.merge needs at least one report")
        var state = MergeState()
        for report in reports {
            state.add(report)
        }
        var run = reports[0].run
        run.startTime = reports.map(\.run.startTime).min() ?? run.startTime
        run.endTime = reports.map(\.run.endTime).max() ?? run.endTime
        run.tests = reports.flatMap(\.run.tests)
        run.processCount = reports.reduce(0) { $0 + $1.run.processCount }
        run.completeness = .merged
        var merged = DiagnosticsReport(
            schemaVersion: DiagnosticsReport.currentSchemaVersion, tool: reports[0].tool, run: run,
            findings: state.findings, ledger: LedgerSummary(kinds: state.kinds, liveAtEnd: state.sites),
            schedulers: state.schedulerLabels.map { label in LatencyMerge.merge(state.schedulers[label] ?? []) },
            stacks: state.stacks, images: state.images,
            droppedFindings: reports.reduce(0) { $0 + $1.droppedFindings })
        merged.sourceLines = Self.sourceLines(of: merged, from: reports)
        return merged
    }

    /// The merged report's line status, counted anew; the inputs' reasons, each once, say why
    /// lines are missing (a version 1 input did not say).
    private static func sourceLines(of merged: DiagnosticsReport, from reports: [DiagnosticsReport]) -> SourceLineStatus
    {
        var reasons: [String] = []
        for report in reports {
            let reason =
                report.sourceLines.map { $0.reason } ?? "a version 1 report, written before reports carried lines"
            if let reason, !reasons.contains(reason) { reasons.append(reason) }
        }
        let resolver = reports.lazy.compactMap { $0.sourceLines?.resolver }.first
        return SourceLineStatus.measure(
            merged, resolver: resolver, reason: reasons.isEmpty ? nil : reasons.joined(separator: "; "))
    }
}

/// The merge in progress.
private struct MergeState {
    struct ImageKey: Hashable {
        let path: String
        let buildID: String?
    }

    struct FrameKey: Hashable {
        let image: Int?
        let position: String
        let symbol: String?
        let function: String?
        let module: String?
        let category: FrameCategory
        let file: String?
        let line: Int?
        let column: Int?

        init(_ frame: ReportFrame) {
            image = frame.image
            position = frame.image != nil ? (frame.offset ?? frame.address) : frame.address
            symbol = frame.symbol
            function = frame.function
            module = frame.module
            category = frame.category
            file = frame.file
            line = frame.line
            column = frame.column
        }
    }

    struct SiteKey: Hashable {
        let kind: String
        let label: String
        let stack: Int?
    }

    var images: [ReportImage] = []
    var imageIDs: [ImageKey: Int] = [:]
    var stacks: [ReportStack] = []
    var stackIDs: [[FrameKey]: Int] = [:]
    var findings: [ReportFinding] = []
    var kinds: [KindTotals] = []
    var kindPositions: [String: Int] = [:]
    var sites: [LiveSite] = []
    var sitePositions: [SiteKey: Int] = [:]
    var schedulers: [String: [SchedulerSummary]] = [:]
    var schedulerLabels: [String] = []

    mutating func add(_ report: DiagnosticsReport) {
        var imageMap: [Int: Int] = [:]
        for image in report.images.sorted(by: { $0.id < $1.id }) {
            let key = ImageKey(path: image.path, buildID: image.buildID)
            if let id = imageIDs[key] {
                imageMap[image.id] = id
            } else {
                let id = images.count
                images.append(ReportImage(id: id, path: image.path, buildID: image.buildID))
                imageIDs[key] = id
                imageMap[image.id] = id
            }
        }
        var stackMap: [Int: Int] = [:]
        for stack in report.stacks.sorted(by: { $0.id < $1.id }) {
            var frames = stack.frames
            for position in frames.indices {
                frames[position].image = frames[position].image.flatMap { imageMap[$0] }
            }
            let key = frames.map(FrameKey.init)
            if let id = stackIDs[key] {
                stackMap[stack.id] = id
            } else {
                let id = stacks.count
                stacks.append(ReportStack(id: id, frames: frames, droppedFrames: stack.droppedFrames))
                stackIDs[key] = id
                stackMap[stack.id] = id
            }
        }
        for var finding in report.findings.sorted(by: { $0.id < $1.id }) {
            finding.id = findings.count + 1
            finding.allocationStack = finding.allocationStack.flatMap { stackMap[$0] }
            finding.eventStack = finding.eventStack.flatMap { stackMap[$0] }
            finding.relatedStack = finding.relatedStack.flatMap { stackMap[$0] }
            if let chain = finding.chain {
                finding.chain = chain.map { stage in
                    var stage = stage
                    stage.allocationStack = stage.allocationStack.flatMap { stackMap[$0] }
                    return stage
                }
            }
            findings.append(finding)
        }
        addLedger(report.ledger, stackMap: stackMap)
        for scheduler in report.schedulers {
            if schedulers[scheduler.label] == nil {
                schedulerLabels.append(scheduler.label)
            }
            schedulers[scheduler.label, default: []].append(scheduler)
        }
    }

    private mutating func addLedger(_ ledger: LedgerSummary, stackMap: [Int: Int]) {
        for totals in ledger.kinds {
            if let position = kindPositions[totals.kind] {
                kinds[position].registered += totals.registered
                kinds[position].live += totals.live
                kinds[position].peak += totals.peak
            } else {
                kindPositions[totals.kind] = kinds.count
                kinds.append(totals)
            }
        }
        for var site in ledger.liveAtEnd {
            site.stack = site.stack.flatMap { stackMap[$0] }
            let key = SiteKey(kind: site.kind, label: site.label, stack: site.stack)
            if let position = sitePositions[key] {
                sites[position].count += site.count
                sites[position].tests = Array(Set(sites[position].tests + site.tests)).sorted()
            } else {
                sitePositions[key] = sites.count
                site.tests = Array(Set(site.tests)).sorted()
                sites.append(site)
            }
        }
    }
}
