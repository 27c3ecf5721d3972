import Foundation
import Synchronization
import ReactiveDiagnosticsReport

/// Builds a ``DiagnosticsReport`` from an engine: symbolizes every stack a finding or live
/// site refers to (once each), fingerprints findings and collects the statistics.
struct ReportBuilder {
    let engine: DiagnosticsEngine

    private var stackIDs: [StackID: Int] = [:]
    private var stacks: [ReportStack] = []
    private var imageIDs: [String: Int] = [:]
    private var images: [ReportImage] = []
    private var testNames: [TestIdentity: String?] = [:]
    private var kindNames: [ResourceKind: String] = [:]

    init(engine: DiagnosticsEngine) {
        self.engine = engine
    }

    mutating func build(completeness: RunInfo.Completeness) -> DiagnosticsReport {
        engine.evaluatePrematureCancels(test: nil)
        engine.ledger.sweep()
        let findings = engine.findings()
        var reportFindings: [ReportFinding] = []
        reportFindings.reserveCapacity(findings.count)
        let hasRules = !engine.configuration.suppressions.rules.isEmpty
        for original in findings {
            var finding = original
            if hasRules, finding.suppressedBy == nil {
                finding.suppressedBy = engine.applySuppressions(to: finding)
            }
            reportFindings.append(ReportFinding(
                id: finding.id, kind: finding.kind.rawValue, severity: finding.severity, message: finding.message,
                label: finding.label, resourceKind: finding.resourceKind.map { name(of: $0) }, test: name(of: finding.test),
                fingerprint: engine.fingerprint(of: finding), policy: finding.policy.rawValue,
                suppressedBy: finding.suppressedBy, allocationStack: reference(finding.allocationStack),
                eventStack: reference(finding.eventStack), relatedStack: reference(finding.relatedStack),
                thread: finding.thread.map(Self.thread), otherThread: finding.otherThread.map(Self.thread),
                time: (finding.time * 1000).rounded() / 1000, details: finding.details))
        }
        let statistics = engine.ledger.statistics()
        let kinds = statistics.kinds.map {
            KindTotals(kind: $0.kind.name, registered: $0.registered, peak: $0.peak, live: $0.live)
        }
        var live: [LiveSite] = []
        for site in statistics.sites {
            live.append(LiveSite(
                kind: site.kind.name, label: site.label.name, stack: reference(site.stack), count: site.count,
                tests: site.tests.compactMap(\.name).sorted()))
        }
        let run = RunInfo(
            processName: ProcessInfo.processInfo.processName, processID: ProcessInfo.processInfo.processIdentifier,
            arguments: ProcessInfo.processInfo.arguments, executable: Self.executablePath(),
            workingDirectory: FileManager.default.currentDirectoryPath, hostName: ProcessInfo.processInfo.hostName,
            platform: Self.platform, toolchain: Self.toolchain, startTime: ReportDates.normalized(engine.startDate),
            endTime: ReportDates.normalized(Date()),
            completeness: completeness, tests: engine.tests.withLock { $0.records }, processCount: 1)
        return DiagnosticsReport(
            run: run, findings: reportFindings, ledger: LedgerSummary(kinds: kinds, liveAtEnd: live),
            schedulers: engine.schedulerSummaries(), stacks: stacks, images: images,
            droppedFindings: engine.findingStore.dropped)
    }

    /// Test names, looked up once each (the intern table takes a lock per lookup).
    private mutating func name(of test: TestIdentity) -> String? {
        if let cached = testNames[test] {
            return cached
        }
        let name = test.name
        testNames[test] = name
        return name
    }

    private mutating func name(of kind: ResourceKind) -> String {
        if let cached = kindNames[kind] {
            return cached
        }
        let name = kind.name
        kindNames[kind] = name
        return name
    }

    private mutating func reference(_ stack: StackID) -> Int? {
        guard stack.isCaptured else { return nil }
        if let id = stackIDs[stack] {
            return id
        }
        let symbolized = engine.symbolize(stack)
        let id = Int(stack.rawValue)
        let frames = symbolized.frames.map { frame -> ReportFrame in
            ReportFrame(
                address: Self.hex(frame.address), image: frame.imagePath.map { image(path: $0, buildID: frame.imageBuildID) },
                offset: frame.imageOffset.map(Self.hex), symbol: frame.symbol, function: frame.function,
                module: frame.module, category: frame.category)
        }
        stacks.append(ReportStack(id: id, frames: frames, droppedFrames: symbolized.droppedFrames))
        stackIDs[stack] = id
        return id
    }

    private mutating func image(path: String, buildID: String?) -> Int {
        if let id = imageIDs[path] {
            return id
        }
        let id = images.count
        images.append(ReportImage(id: id, path: path, buildID: buildID))
        imageIDs[path] = id
        return id
    }

    static func hex(_ value: UInt) -> String {
        "0x" + String(value, radix: 16)
    }

    static func thread(_ info: ThreadInfo) -> ReportThread {
        ReportThread(id: info.id, name: info.name, isMainQueue: info.isMainQueue)
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
