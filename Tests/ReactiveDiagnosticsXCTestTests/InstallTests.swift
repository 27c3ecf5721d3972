import ReactiveDiagnosticsTestSupport
import Foundation
import ReactiveDiagnostics
import ReactiveDiagnosticsXCTest
import Testing

/// `ReactiveDiagnosticsXCTest.install()`: each test runs ``InstallFixtures`` or
/// ``SequenceFixtures`` in a child XCTest process and reads its exit status, output and report.
@Suite("XCTest: install()", .enabled(if: childProcessesAreSupported))
struct InstallTests {
    static let fixtures = "ReactiveDiagnosticsXCTestTests.InstallFixtures"

    /// Where a failure points for the fixture site `site`: its own line when llvm-symbolizer is
    /// there, else the `install()` call.
    func expectedLocation(_ site: String) throws -> String {
        if DiagnosticsEngine.shared.resolvesSourceLines {
            return "\(InstallFixtures.file):\(try siteLine(site, in: InstallFixtures.file))"
        }
        return "\(InstallFixtures.file):\(try siteLine("install", in: InstallFixtures.file))"
    }

    @Test func aLeakingTestFailsAtTheLeakWithItsAllocationStack() async throws {
        let run = try await ChildProcess.runXCTest("\(Self.fixtures)/testLeaksASubscription")
        #expect(run.status != 0)
        let location = try expectedLocation("install-leak")
        #expect(
            run.standardOutput.contains(
                """
                \(location): error: InstallFixtures.testLeaksASubscription : ReactiveDiagnostics: leakedSubscription [error]: \
                subscription 'install-leak' still alive at the end of the test: never completed, failed or cancelled
                """), "\(run.output)")
        #expect(
            run.standardOutput.contains(
                """
                  test: ReactiveDiagnosticsXCTestTests.InstallFixtures/testLeaksASubscription
                  allocated at:
                    ReactiveDiagnosticsXCTestTests.InstallFixtures.testLeaksASubscription() -> ()
                """), "the allocation stack starts in the test: \(run.output)")
        #expect(
            run.standardOutput.contains(
                "allow it in this test with diagnosticOptions.allowedKinds.insert(.leakedSubscription)"))
        #expect(run.standardOutput.contains("Test Case 'InstallFixtures.testLeaksASubscription' failed"))

        let report = try run.report()
        let finding = try #require(report.findings.first)
        #expect(report.findings.count == 1)
        #expect(finding.kind == "leakedSubscription" && finding.label == "install-leak" && finding.suppressedBy == nil)
        #expect(finding.test == "ReactiveDiagnosticsXCTestTests.InstallFixtures/testLeaksASubscription")
        #expect(
            report.firstUserFunction(ofStack: finding.allocationStack)
                == "ReactiveDiagnosticsXCTestTests.InstallFixtures.testLeaksASubscription() -> ()")
        #expect(report.run.tests == [TestRecord(name: finding.test ?? "", findings: 1, failed: true)])
        #expect(
            run.standardError.contains(
                "ReactiveDiagnostics: 1 finding (1 error) in 1 test; 1 resource alive at the end"))
        #expect(
            run.standardError.components(separatedBy: "ReactiveDiagnostics: 1 finding").count == 2,
            "written at the end of the bundle; the exit handler finds it current and prints nothing more")
        #expect(
            !run.standardOutput.contains("ReactiveDiagnostics: 1 finding"), "the summary never goes to standard output")
    }

    @Test func aCleanTestPasses() async throws {
        let run = try await ChildProcess.runXCTest("\(Self.fixtures)/testEndsItsSubscription")
        #expect(run.status == 0, "\(run.output)")
        #expect(run.standardOutput.contains("Test Case 'InstallFixtures.testEndsItsSubscription' passed"))
        let report = try run.report()
        #expect(report.findings.isEmpty)
        #expect(
            report.run.tests == [
                TestRecord(name: "\(Self.fixtures)/testEndsItsSubscription", findings: 0, failed: false)
            ])
    }

    @Test func aGrammarFindingFailsTheTestItHappenedIn() async throws {
        let run = try await ChildProcess.runXCTest("\(Self.fixtures)/testDeliversAfterCompletion")
        #expect(run.status != 0)
        let location = try expectedLocation("install-grammar")
        #expect(
            run.standardOutput.contains(
                "\(location): error: InstallFixtures.testDeliversAfterCompletion : ReactiveDiagnostics: valueAfterTermination [error]"
            ),
            "\(run.output)")
        #expect(run.standardOutput.contains("  event at "), "the offending event's stack is shown too")
        let report = try run.report()
        #expect(report.findings.map(\.kind) == ["valueAfterTermination"])
        #expect(report.findings.first?.test == "\(Self.fixtures)/testDeliversAfterCompletion")
    }

    @Test func anAllowedKindPassesAndIsCountedAsSuppressed() async throws {
        let run = try await ChildProcess.runXCTest("\(Self.fixtures)/testAllowsItsLeak")
        #expect(run.status == 0, "\(run.output)")
        let report = try run.report()
        #expect(report.findings.map(\.suppressedBy) == ["test allows leakedSubscription"])
        #expect(report.run.tests.map(\.failed) == [false])
        #expect(
            run.standardError.contains(
                "ReactiveDiagnostics: 0 findings in 1 test; 1 resource alive at the end\n  1 suppressed"))
    }

    @Test func aSuppressionsFileTurnsAKnownLeakIntoASuppressedFinding() async throws {
        let directory = try ChildProcess.makeReportDirectory()
        let file = directory.appendingPathComponent("suppressions.txt")
        try "# a cache in an SDK we do not own\nleakedSubscription:vendor-sdk\n".write(
            to: file, atomically: true, encoding: .utf8)
        async let suppressed = ChildProcess.runXCTest(
            "\(Self.fixtures)/testLeaksInVendorCode", environment: ["REACTIVE_DIAGNOSTICS_SUPPRESSIONS": file.path])
        async let unsuppressed = ChildProcess.runXCTest("\(Self.fixtures)/testLeaksInVendorCode")

        let with = try await suppressed
        #expect(with.status == 0, "\(with.output)")
        let report = try with.report()
        #expect(report.findings.map(\.kind) == ["leakedSubscription"])
        #expect(report.findings.map(\.suppressedBy) == ["leakedSubscription:vendor-sdk"])
        #expect(with.standardError.contains("  1 suppressed"))

        let without = try await unsuppressed
        #expect(without.status != 0, "the same test fails without the file")
        #expect(try without.report().findings.map(\.suppressedBy) == [nil])
    }

    @Test func aRaisedSettleTimeLetsALateEndHappen() async throws {
        async let raised = ChildProcess.runXCTest("\(Self.fixtures)/testEndsLateWithARaisedSettleTime")
        async let standard = ChildProcess.runXCTest("\(Self.fixtures)/testEndsLateWithTheDefaultSettleTime")
        let raisedRun = try await raised
        #expect(raisedRun.status == 0, "\(raisedRun.output)")
        #expect(try raisedRun.report().findings.isEmpty)
        let standardRun = try await standard
        #expect(standardRun.status != 0, "50 ms is too short for an end 300 ms later")
        #expect(try standardRun.report().findings.map(\.label) == ["install-slow-default"])
    }

    @Test func aPropertyClearedInTearDownIsNoLeak() async throws {
        // install()'s check is a teardown block, which XCTest runs before tearDown(): a test
        // that keeps something in its properties has its lifetime judged after tearDown().
        let run = try await ChildProcess.runXCTest("\(Self.fixtures)/testClearsItsPropertyInTearDown")
        #expect(run.status == 0, "\(run.output)")
        let report = try run.report()
        #expect(report.findings.isEmpty)
        #expect(
            report.run.tests == [
                TestRecord(name: "\(Self.fixtures)/testClearsItsPropertyInTearDown", findings: 0, failed: false)
            ])
    }

    @Test func testsRunOneAfterAnotherEachGetTheirOwnFindings() async throws {
        let run = try await ChildProcess.runXCTest("ReactiveDiagnosticsXCTestTests.SequenceFixtures")
        #expect(run.status != 0)
        #expect(run.standardOutput.contains("Test Case 'SequenceFixtures.test1LeaksOnABackgroundThread' failed"))
        #expect(run.standardOutput.contains("Test Case 'SequenceFixtures.test2IsClean' passed"))
        #expect(run.standardOutput.contains("Test Case 'SequenceFixtures.test3Leaks' failed"))
        let report = try run.report()
        let prefix = "ReactiveDiagnosticsXCTestTests.SequenceFixtures/"
        #expect(
            report.run.tests == [
                TestRecord(name: prefix + "test1LeaksOnABackgroundThread", findings: 1, failed: true),
                TestRecord(name: prefix + "test2IsClean", findings: 0, failed: false),
                TestRecord(name: prefix + "test3Leaks", findings: 1, failed: true),
            ])
        let owners = Dictionary(uniqueKeysWithValues: report.findings.map { ($0.label ?? "", $0.test ?? "") })
        #expect(
            owners == [
                "sequence-1": prefix + "test1LeaksOnABackgroundThread",
                "sequence-3": prefix + "test3Leaks",
            ])
    }
}
