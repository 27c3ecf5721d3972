import ReactiveDiagnosticsTestSupport
import Foundation
import ReactiveDiagnostics
import ReactiveDiagnosticsTesting
import Testing

/// The `.diagnosed` trait in a real Swift Testing run: each test runs fixtures in a child
/// process (no XCTest at all) and reads its exit status, output and report.
@Suite("Swift Testing: child runs", .enabled(if: childProcessesAreSupported))
struct TraitProcessTests {
    static let suite = "ReactiveDiagnosticsTestingTests.TraitFixtures"

    /// A `--filter` (a regular expression over test IDs) for one fixture test.
    func only(_ test: String) -> String {
        "TraitFixtures/\(test)\\(\\)"
    }

    @Test func aLeakingTestFailsAndTheReportIsWrittenAtExit() async throws {
        let run = try await ChildProcess.runSwiftTesting(only("leaks"))
        #expect(run.status != 0, "\(run.output)")
        let line = try siteLine("trait-leak", in: TraitFixtures.file)
        let location =
            DiagnosticsEngine.shared.resolvesSourceLines ? "TraitFixtures.swift:\(line)" : "TraitFixtures.swift:"
        #expect(run.output.contains("Test leaks() recorded an issue at \(location)"), "\(run.output)")
        #expect(
            run.output.contains(
                "ReactiveDiagnostics: leakedSubscription [error]: subscription 'trait-leak' still alive"))
        #expect(run.output.contains("TraitFixtures.leaks() -> ()"))

        let report = try run.report()
        let finding = try #require(report.findings.first)
        #expect(report.findings.count == 1 && finding.label == "trait-leak")
        #expect(finding.test == "\(Self.suite)/leaks()")
        #expect(
            report.firstUserFunction(ofStack: finding.allocationStack)
                == "ReactiveDiagnosticsTestingTests.TraitFixtures.leaks() -> ()")
        #expect(report.run.tests == [TestRecord(name: "\(Self.suite)/leaks()", findings: 1, failed: true)])
        #expect(run.standardError.contains("ReactiveDiagnostics: 1 finding (1 error) in 1 test"))
        #expect(
            !run.standardOutput.contains("ReactiveDiagnostics: 1 finding"), "the summary never goes to standard output")
    }

    @Test func aCleanTestPasses() async throws {
        let run = try await ChildProcess.runSwiftTesting(only("endsItsSubscription"))
        #expect(run.status == 0, "\(run.output)")
        let report = try run.report()
        #expect(report.findings.isEmpty)
        #expect(
            report.run.tests == [TestRecord(name: "\(Self.suite)/endsItsSubscription()", findings: 0, failed: false)])
    }

    @Test func allowancesAndSettleTimesApplyPerTest() async throws {
        let run = try await ChildProcess.runSwiftTesting("TraitFixtures/(allowsItsLeak|endsLateWith.*)\\(\\)")
        #expect(run.status != 0)
        let report = try run.report()
        let records = Dictionary(uniqueKeysWithValues: report.run.tests.map { ($0.name, $0.failed) })
        #expect(
            records == [
                "\(Self.suite)/allowsItsLeak()": false,
                "\(Self.suite)/endsLateWithARaisedSettleTime()": false,
                "\(Self.suite)/endsLateWithTheDefaultSettleTime()": true,
            ])
        let suppressed = report.findings.filter { $0.suppressedBy != nil }
        #expect(suppressed.map(\.label) == ["trait-allowed"])
        #expect(suppressed.map(\.suppressedBy) == ["test allows leakedSubscription"])
        #expect(report.findings.filter { $0.suppressedBy == nil }.map(\.label) == ["trait-slow-default"])
    }

    @Test func suppressionsFromTheFileAndFromTheTraitAreCountedNotHidden() async throws {
        let directory = try ChildProcess.makeReportDirectory()
        let file = directory.appendingPathComponent("suppressions.txt")
        try "leakedSubscription:vendor-sdk\n".write(to: file, atomically: true, encoding: .utf8)
        let run = try await ChildProcess.runSwiftTesting(
            "TraitFixtures/(leaksInVendorCode|declaresAVendorSuppression|leaksInAnotherVendorsCode)\\(\\)",
            environment: ["REACTIVE_DIAGNOSTICS_SUPPRESSIONS": file.path])
        #expect(run.status == 0, "\(run.output)")
        let report = try run.report()
        let rules = Dictionary(uniqueKeysWithValues: report.findings.map { ($0.label ?? "", $0.suppressedBy ?? "") })
        #expect(
            rules == ["vendor-sdk-cache": "leakedSubscription:vendor-sdk", "vendor-ads-tracker": "leak:^vendor-ads"])
        #expect(run.standardError.contains("  2 suppressed"))
    }

    @Test func onlyWorkThatCarriesTheTestIsAttributed() async throws {
        let run = try await ChildProcess.runSwiftTesting(
            "TraitFixtures/leaks(OnAThreadWithoutATest|InWorkOfADiagnosedScheduler)\\(\\)")
        let report = try run.report()
        #expect(report.findings.map(\.label) == ["trait-scheduled"])
        #expect(report.findings.first?.test == "\(Self.suite)/leaksInWorkOfADiagnosedScheduler()")
        let unattributed = report.ledger.liveAtEnd.filter { $0.label == "trait-unattributed" }
        #expect(unattributed.count == 1 && unattributed.first?.tests == [], "alive at the end, but no test's")
        #expect(report.test("\(Self.suite)/leaksOnAThreadWithoutATest()")?.failed == false)
    }

    @Test func testsRunningInParallelEachGetTheirOwnFindings() async throws {
        let run = try await ChildProcess.runSwiftTesting("ParallelFixtures/")
        #expect(run.status != 0)
        #expect(!run.output.contains("never ran at the same time"), "\(run.output)")
        let report = try run.report()
        #expect(report.run.tests.count == ParallelFixtures.count)
        #expect(report.run.tests.filter(\.failed).count == ParallelFixtures.count / 2)
        // Each failing test owns the three leaks of exactly one odd index.
        let byTest = Dictionary(grouping: report.findings, by: { $0.test ?? "" })
        var indices: [String] = []
        for (test, findings) in byTest {
            let owners = Set(findings.compactMap { $0.label?.split(separator: "-")[1] }.map(String.init))
            #expect(owners.count == 1, "\(test) has findings of \(owners)")
            #expect(findings.count == 3 && report.test(test)?.findings == 3)
            indices += owners
        }
        #expect(indices.sorted() == ["1", "3", "5"])
    }
}
