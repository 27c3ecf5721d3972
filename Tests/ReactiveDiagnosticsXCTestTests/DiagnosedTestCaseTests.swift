import ReactiveDiagnosticsTestSupport
import Foundation
import ReactiveDiagnostics
import ReactiveDiagnosticsXCTest
import Testing

/// ``DiagnosedTestCase``: runs ``DiagnosedFixtures`` in a child XCTest process.
@Suite("XCTest: DiagnosedTestCase", .enabled(if: childProcessesAreSupported))
struct DiagnosedTestCaseTests {
    static let fixtures = "ReactiveDiagnosticsXCTestTests.DiagnosedFixtures"

    func expectedLocation(_ site: String) throws -> String {
        // Without llvm-symbolizer the base class has no line of its own to fall back on.
        let line = DiagnosticsEngine.shared.resolvesSourceLines ? try siteLine(site, in: DiagnosedFixtures.file) : 0
        return "\(line == 0 ? "<unknown>" : DiagnosedFixtures.file):\(line)"
    }

    @Test func findingsFailTheirTestAfterTearDown() async throws {
        let run = try await ChildProcess.runXCTest(Self.fixtures)
        #expect(run.status != 0)
        let out = run.standardOutput
        // Cleared in tearDown(): the check runs after it, so this is not a leak.
        #expect(out.contains("Test Case 'DiagnosedFixtures.testClearsItsPropertyInTearDown' passed"), "\(run.output)")
        #expect(
            out.contains(
                """
                \(try expectedLocation("base-leak")): error: DiagnosedFixtures.testLeaksASubscription : \
                ReactiveDiagnostics: leakedSubscription [error]: subscription 'base-leak' still alive at the end of the test
                """), "\(run.output)")
        #expect(
            out.contains(
                """
                \(try expectedLocation("base-async")): error: DiagnosedFixtures.testLeaksInAnAsyncTest : \
                ReactiveDiagnostics: leakedSubscription [error]: subscription 'base-async' still alive
                """), "async tests are attributed too: \(run.output)")
        #expect(
            out.contains(
                """
                \(try expectedLocation("base-scheduler")): error: DiagnosedFixtures.testSchedulesWorkThatNeverRuns : \
                ReactiveDiagnostics: pendingAction [error]: action scheduled on 'base-scheduler' still pending at the end of the test
                """), "\(run.output)")

        let report = try run.report()
        let prefix = Self.fixtures + "/"
        #expect(
            report.run.tests == [
                TestRecord(name: prefix + "testClearsItsPropertyInTearDown", findings: 0, failed: false),
                TestRecord(name: prefix + "testLeaksASubscription", findings: 1, failed: true),
                TestRecord(name: prefix + "testLeaksInAnAsyncTest", findings: 1, failed: true),
                TestRecord(name: prefix + "testSchedulesWorkThatNeverRuns", findings: 1, failed: true),
            ])
        for finding in report.findings {
            let test = try #require(finding.test)
            let method = String(test.dropFirst(prefix.count))
            let function = try #require(report.firstUserFunction(ofStack: finding.allocationStack))
            #expect(function.contains("DiagnosedFixtures.\(method)()"), "\(finding.label ?? ""): \(function)")
        }
    }

    @Test func theBaseClassCanChangeTheEngineAndDefaults() {
        final class Custom: DiagnosedTestCase {
            override class var diagnosticsEngine: DiagnosticsEngine { Fixture.quietEngine }
            override class var defaultDiagnosticOptions: TestOptions { TestOptions(allowedKinds: [.longAction]) }
        }
        #expect(Custom.diagnosticsEngine === Fixture.quietEngine)
        #expect(Custom.defaultDiagnosticOptions.allowedKinds == [.longAction])
        #expect(DiagnosedTestCase.diagnosticsEngine === DiagnosticsEngine.shared)
    }
}
