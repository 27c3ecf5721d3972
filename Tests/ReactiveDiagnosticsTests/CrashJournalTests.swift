import Foundation
@_spi(Integration) import ReactiveDiagnostics
import ReactiveDiagnosticsReport
import ReactiveDiagnosticsSymbolication
import ReactiveDiagnosticsTestSupport
import Testing

/// Findings survive the death of the process that made them.
@Suite("Crash journal")
struct CrashJournalTests {
    func engineWritingReports(to directory: TemporaryDirectory) -> DiagnosticsEngine {
        var configuration = Configuration()
        configuration.printsSummary = false
        configuration.reportPath = directory.url.appendingPathComponent("report-%p.json").path
        return DiagnosticsEngine(configuration: configuration)
    }

    func violate(_ engine: DiagnosticsEngine) {
        let monitor = engine.makeStreamMonitor(label: DiagnosticLabel("journaled"))
        monitor.receivedSubscription()
        monitor.requested(.unlimited)
        monitor.didTerminate(monitor.willTerminate(failure: nil))
        monitor.didDeliverValue(monitor.willDeliverValue())
        monitor.didTerminate(monitor.willTerminate(failure: "late"))
    }

    @Test func aCleanRunLeavesNoJournal() throws {
        let directory = try TemporaryDirectory()
        let engine = engineWritingReports(to: directory)
        let checkpoint = engine.beginTest(named: "clean", serial: false)
        _ = engine.finishTest(checkpoint)
        #expect(engine.journalPath?.hasSuffix(".journal.jsonl") == true)
        #expect(directory.files.isEmpty)
    }

    @Test func findingsAreJournaledAsTheyHappen() throws {
        let directory = try TemporaryDirectory()
        let engine = engineWritingReports(to: directory)
        let checkpoint = engine.beginTest(named: "CrashJournalTests.journaled", serial: false)
        TestIdentity.$current.withValue(checkpoint.test) { violate(engine) }
        let path = try #require(engine.journalPath)
        // Before the test even ends, the findings are on disk.
        let early = try DiagnosticsReport.loadJournal(from: URL(fileURLWithPath: path))
        #expect(early.findings.map(\.kind) == ["valueAfterTermination", "duplicateTermination"])
        #expect(early.findings.allSatisfy { $0.allocationStack != nil && $0.eventStack != nil })
        // Their stacks are named, and their fingerprints known, off the thread that made them.
        engine.waitUntilJournalNamed()
        let partial = try DiagnosticsReport.loadJournal(from: URL(fileURLWithPath: path))
        #expect(partial.run.completeness == .partial)
        #expect(partial.rawStackIDs.isEmpty)
        let stack = try #require(partial.stacks.first { $0.id == partial.findings[0].allocationStack })
        #expect(stack.frames.contains { $0.function?.contains("CrashJournalTests.violate") == true })
        #expect(partial.findings.map(\.fingerprint) == engine.findings().map { engine.fingerprint(of: $0) })
        _ = engine.finishTest(checkpoint)
        #expect(
            try DiagnosticsReport.loadJournal(from: URL(fileURLWithPath: path)).run.tests.map(\.name)
                == ["CrashJournalTests.journaled"])
        // The final report supersedes the journal.
        let report = try engine.writeReport()
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try DiagnosticsReport.load(from: report).findings.count == 2)
    }

    /// What a process that died before its journal named the stacks leaves: the journal's
    /// entries up to each finding's own, written on the finding's thread (the named stacks and
    /// the fingerprints come later, from the naming queue).
    static func writtenByTheFindingsThreads(_ journal: Data) throws -> Data {
        var seenStacks: Set<Substring> = []
        var kept = Data()
        let stackID = try Regex(#"^\{"stack":.*"id":([0-9]+)\}\}$"#)
        for line in String(decoding: journal, as: UTF8.self).split(separator: "\n") {
            if line.hasPrefix(#"{"update":"#) && line.contains(#""fingerprint""#) { continue }
            if let match = line.wholeMatch(of: stackID), let id = match.output[1].substring {
                guard seenStacks.insert(id).inserted else { continue }  // the named copy
            }
            kept.append(contentsOf: Data((line + "\n").utf8))
        }
        return kept
    }

    @Test func aFindingsThreadWritesRawStacksThatTheToolNames() throws {
        let directory = try TemporaryDirectory()
        let engine = engineWritingReports(to: directory)
        let checkpoint = engine.beginTest(named: "CrashJournalTests.raw", serial: false)
        TestIdentity.$current.withValue(checkpoint.test) { violate(engine) }
        _ = engine.finishTest(checkpoint)
        engine.waitUntilJournalNamed()
        let journal = try Data(contentsOf: URL(fileURLWithPath: try #require(engine.journalPath)))
        var crashed = try DiagnosticsReport.rebuild(
            fromJournal: try Self.writtenByTheFindingsThreads(journal), source: "j")
        #expect(crashed.findings.map(\.kind) == ["valueAfterTermination", "duplicateTermination"])
        #expect(crashed.findings.allSatisfy { $0.fingerprint.isEmpty })
        let allocation = try #require(crashed.findings[0].allocationStack)
        #expect(crashed.rawStackIDs.contains(allocation))
        let raw = try #require(crashed.stacks.first { $0.id == allocation })
        #expect(raw.frames.allSatisfy { $0.function == nil && $0.symbol == nil })
        #expect(raw.frames.contains { $0.image != nil && $0.offset != nil })

        let symbolizer = try #require(
            SymbolizerLocator.onPath("llvm-symbolizer", environment: ProcessInfo.processInfo.environment),
            "llvm-symbolizer must be on PATH (Tools/test.sh installs it)")
        let fill = crashed.nameRawStacks(with: SourceLineResolver(symbolizer: symbolizer))
        #expect(fill.problems.isEmpty, "\(fill.notes)")
        #expect(crashed.rawStackIDs.isEmpty)
        let named = try #require(crashed.stacks.first { $0.id == allocation })
        let user = try #require(named.frames.first { $0.category == .user })
        #expect(user.function?.contains("CrashJournalTests.violate") == true, "\(named.frames.map(\.function))")
        #expect(user.file?.hasSuffix("CrashJournalTests.swift") == true)
        // The tool's fingerprints are the engine's: the gate matches a crashed run's findings too.
        #expect(crashed.findings.map(\.fingerprint) == engine.findings().map { engine.fingerprint(of: $0) })
        // The engine's own report of the same findings: the same frames, the same leading frames dropped.
        let final = try DiagnosticsReport.load(from: try engine.writeReport())
        let engineStack = try #require(final.stacks.first { $0.id == final.findings[0].allocationStack })
        #expect(named.droppedFrames == engineStack.droppedFrames)
        // (Outside the user's code the names can differ: libunwind names a stripped libc's frames
        // by the nearest exported symbol, llvm-symbolizer by its debug information.)
        let notSystem: (ReportFrame) -> Bool = { $0.category != .system }
        #expect(named.frames.filter(notSystem).map(\.function) == engineStack.frames.filter(notSystem).map(\.function))
    }

    @Test func updatesAfterRecordingAreJournaled() throws {
        let directory = try TemporaryDirectory()
        let engine = engineWritingReports(to: directory)
        let monitor = engine.makeStreamMonitor(label: DiagnosticLabel("racy"))
        monitor.receivedSubscription()
        monitor.requested(.unlimited)
        let first = DispatchSemaphore(value: 0)
        let second = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            let delivery = monitor.willDeliverValue()
            first.signal()
            second.wait()
            monitor.didDeliverValue(delivery)
        }
        first.wait()
        monitor.didDeliverValue(monitor.willDeliverValue())
        second.signal()
        group.wait()
        let rebuilt = try DiagnosticsReport.loadJournal(from: URL(fileURLWithPath: try #require(engine.journalPath)))
        #expect(rebuilt.findings.first?.kind == "concurrentDelivery")
        #expect(rebuilt.findings.first?.relatedStack != nil && rebuilt.findings.first?.otherThread != nil)
    }

    @Test func aLineCutShortByACrashIsIgnored() throws {
        let directory = try TemporaryDirectory()
        let engine = engineWritingReports(to: directory)
        violate(engine)
        let url = URL(fileURLWithPath: try #require(engine.journalPath))
        var data = try Data(contentsOf: url)
        data.append(Data(#"{"finding":{"id":3,"kind":"valueAfter"#.utf8))
        #expect(try DiagnosticsReport.rebuild(fromJournal: data, source: "j").findings.count == 2)
        // A broken line in the middle is not a crash artefact: it is an error.
        var corrupt = Data(#"{"nonsense":1}"#.utf8)
        corrupt.append(0x0A)
        corrupt.append(data)
        #expect(throws: ReportError.self) { try DiagnosticsReport.rebuild(fromJournal: corrupt, source: "j") }
        #expect(throws: ReportError(source: "j", reason: .empty)) {
            try DiagnosticsReport.rebuild(fromJournal: Data(), source: "j")
        }
    }

    // MARK: Real crashes in a child process

    static let fixtureVariable = "REACTIVE_DIAGNOSTICS_CRASH_FIXTURE"

    @inline(never)
    static func recordFindingsThenCrash(_ mode: String) {
        let engine = DiagnosticsEngine.shared
        let monitor = engine.makeStreamMonitor(label: DiagnosticLabel("doomed"))
        monitor.receivedSubscription()
        monitor.requested(.max(1))
        monitor.didDeliverValue(monitor.willDeliverValue())
        monitor.didDeliverValue(monitor.willDeliverValue())  // demandExceeded
        monitor.didTerminate(monitor.willTerminate(failure: nil))
        monitor.didDeliverValue(monitor.willDeliverValue())  // valueAfterTermination (trap policy stops here)
        monitor.didTerminate(monitor.willTerminate(failure: nil))  // duplicateTermination
        switch mode {
        case "fatalError":
            fatalError("the child crashes on purpose")
        case "trap":
            let empty: [Int] = []
            blackHole(empty[Int(getpid()) % 7 + 1])  // out of bounds: a trap
        case "kill":
            kill(getpid(), SIGKILL)
        default:
            break
        }
        withExtendedLifetime(monitor) {}
    }

    @inline(never) static func blackHole(_ value: Int) { withExtendedLifetime(value) {} }

    @Test(.enabled(if: ProcessInfo.processInfo.environment[fixtureVariable] != nil))
    func crashFixture() {
        Self.recordFindingsThenCrash(ProcessInfo.processInfo.environment[Self.fixtureVariable] ?? "")
    }

    @Test(arguments: ["fatalError", "trap", "kill"])
    func findingsSurviveTheCrashOfTheirProcess(mode: String) async throws {
        let directory = try TemporaryDirectory()
        let result = try await ChildProcess.runSwiftTesting(
            "crashFixture",
            environment: [
                Self.fixtureVariable: mode,
                "REACTIVE_DIAGNOSTICS_REPORT": directory.url.appendingPathComponent("report-%p.json").path,
                "REACTIVE_DIAGNOSTICS_SUMMARY": "0",
                // The child dies on purpose: the runtime's backtracer would only slow the test down
                // (and can outlive the child it attached to).
                "SWIFT_BACKTRACE": "enable=no",
            ], reportDirectory: directory.url)
        #expect(result.crashed || result.status != 0, "the child must die: \(result.standardError.suffix(300))")
        let journals = directory.files.filter { $0.hasSuffix(".journal.jsonl") }
        try #require(journals.count == 1, "files left: \(directory.files)")
        #expect(!directory.files.contains { $0.hasSuffix(".json") }, "no final report was written")
        var report = try DiagnosticsReport.loadJournal(from: directory.url.appendingPathComponent(journals[0]))
        // What `reactive-diag` does with a journal: name the stacks the process died before naming.
        if let symbolizer = SymbolizerLocator.onPath(
            "llvm-symbolizer", environment: ProcessInfo.processInfo.environment)
        {
            _ = report.nameRawStacks(with: SourceLineResolver(symbolizer: symbolizer))
        }
        #expect(report.run.completeness == .partial)
        #expect(report.findings.allSatisfy { !$0.fingerprint.isEmpty })
        #expect(report.findings.map(\.kind) == ["demandExceeded", "valueAfterTermination", "duplicateTermination"])
        #expect(report.findings.allSatisfy { $0.label == "doomed" })
        let stack = try #require(report.stacks.first { $0.id == report.findings[0].allocationStack })
        #expect(stack.frames.contains { $0.function?.contains("recordFindingsThenCrash") == true })
    }

    @Test func theTrapPolicyWritesTheReportThenStops() async throws {
        let directory = try TemporaryDirectory()
        let result = try await ChildProcess.runSwiftTesting(
            "crashFixture",
            environment: [
                Self.fixtureVariable: "none",
                "REACTIVE_DIAGNOSTICS_REPORT": directory.url.appendingPathComponent("report-%p.json").path,
                "REACTIVE_DIAGNOSTICS_POLICY": "valueAfterTermination=trap",
                "REACTIVE_DIAGNOSTICS_SUMMARY": "0",
                // The child dies on purpose: the runtime's backtracer would only slow the test down
                // (and can outlive the child it attached to).
                "SWIFT_BACKTRACE": "enable=no",
            ], reportDirectory: directory.url)
        // fatalError ends the process with a signal (a sanitizer turns that into an exit status).
        #expect(result.crashed || result.status != 0, "fatalError stops the process")
        #expect(result.standardError.contains("trapping on finding (policy trap)"))
        let reports = directory.files.filter { $0.hasSuffix(".json") }
        try #require(reports.count == 1, "files left: \(directory.files)")
        let report = try DiagnosticsReport.load(from: directory.url.appendingPathComponent(reports[0]))
        #expect(report.findings.map(\.kind) == ["demandExceeded", "valueAfterTermination"])
        #expect(report.findings.last?.policy == "trap")
    }
}
