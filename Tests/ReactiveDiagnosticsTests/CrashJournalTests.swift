import Foundation
@_spi(Integration) import ReactiveDiagnostics
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
        let partial = try DiagnosticsReport.loadJournal(from: URL(fileURLWithPath: path))
        #expect(partial.findings.map(\.kind) == ["valueAfterTermination", "duplicateTermination"])
        #expect(partial.run.completeness == .partial)
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
        let report = try DiagnosticsReport.loadJournal(from: directory.url.appendingPathComponent(journals[0]))
        #expect(report.run.completeness == .partial)
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
