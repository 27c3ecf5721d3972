import Foundation
import ReactiveDiagnosticsReport
import _ReactiveDiagnosticsSupport

/// Builds a ``DiagnosticsReport`` from an engine: symbolizes every stack a finding or live
/// site refers to (once each), fingerprints findings and collects the statistics.
struct ReportBuilder {
    let engine: DiagnosticsEngine

    init(engine: DiagnosticsEngine) {
        self.engine = engine
    }

    func build(completeness: RunInfo.Completeness) -> DiagnosticsReport {
        engine.evaluatePrematureCancels(test: nil)
        engine.ledger.sweep()
        var stacks = StackTable(engine: engine)
        var converter = FindingConverter(engine: engine)
        let findings = engine.findings()
        var reportFindings: [ReportFinding] = []
        reportFindings.reserveCapacity(findings.count)
        let hasRules = !engine.configuration.suppressions.rules.isEmpty
        for original in findings {
            var finding = original
            if hasRules, finding.suppressedBy == nil {
                finding.suppressedBy = engine.applySuppressions(to: finding)
            }
            reportFindings.append(converter.convert(finding, stacks: &stacks))
        }
        let statistics = engine.ledger.statistics()
        let kinds = statistics.kinds.map {
            KindTotals(kind: $0.kind.name, registered: $0.registered, peak: $0.peak, live: $0.live)
        }
        var live: [LiveSite] = []
        for site in statistics.sites {
            live.append(
                LiveSite(
                    kind: converter.name(of: site.kind), label: site.label.name, stack: stacks.reference(site.stack),
                    count: site.count, tests: site.tests.compactMap { converter.name(of: $0) }.sorted()))
        }
        var run = Self.runInfo(engine: engine)
        run.completeness = completeness
        run.tests = engine.tests.withLock { $0.records }
        var report = DiagnosticsReport(
            run: run, findings: reportFindings, ledger: LedgerSummary(kinds: kinds, liveAtEnd: live),
            schedulers: engine.schedulerSummaries(), stacks: stacks.stacks, images: stacks.images,
            droppedFindings: engine.findingStore.dropped)
        engine.resolveSourceLines(in: &report)
        return report
    }

    /// Where and when this process runs.
    static func runInfo(engine: DiagnosticsEngine) -> RunInfo {
        let process = ProcessInfo.processInfo
        return RunInfo(
            processName: process.processName, processID: process.processIdentifier, arguments: process.arguments,
            executable: executablePath(), workingDirectory: FileManager.default.currentDirectoryPath,
            hostName: process.hostName, platform: platform, toolchain: toolchain,
            startTime: ReportDates.normalized(engine.startDate), endTime: ReportDates.normalized(Date()))
    }

    static func executablePath() -> String {
        #if os(Linux)
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return path
        }
        #endif
        return Bundle.main.executablePath ?? CommandLine.arguments.first ?? ""
    }

    static var platform: String {
        #if os(Linux)
        let system = "Linux"
        #elseif os(macOS)
        let system = "macOS"
        #elseif os(iOS)
        let system = "iOS"
        #elseif os(tvOS)
        let system = "tvOS"
        #elseif os(watchOS)
        let system = "watchOS"
        #else
        let system = "unknown OS"
        #endif
        #if arch(x86_64)
        let architecture = "x86_64"
        #elseif arch(arm64)
        let architecture = "arm64"
        #else
        let architecture = "unknown architecture"
        #endif
        return "\(system) \(architecture)"
    }

    static var toolchain: String {
        #if compiler(>=6.4)
        return "Swift 6.4 or later"
        #elseif compiler(>=6.3)
        return "Swift 6.3"
        #elseif compiler(>=6.2)
        return "Swift 6.2"
        #elseif compiler(>=6.1)
        return "Swift 6.1"
        #else
        return "Swift 6.0"
        #endif
    }
}
