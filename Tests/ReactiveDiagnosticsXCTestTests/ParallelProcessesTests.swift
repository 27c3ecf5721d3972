import ReactiveDiagnosticsTestSupport
import Foundation
import ReactiveDiagnostics
import Testing

/// `swift test --parallel` runs each XCTest test in a process of its own: each writes a report
/// of its own in the same directory, and nothing is overwritten.
@Suite("XCTest: parallel processes", .enabled(if: childProcessesAreSupported))
struct ParallelProcessesTests {
    @Test func twoProcessesLeaveTwoReports() async throws {
        let directory = try ChildProcess.makeReportDirectory()
        async let first = ChildProcess.runXCTest(
            "ReactiveDiagnosticsXCTestTests.InstallFixtures/testLeaksASubscription", reportDirectory: directory)
        async let second = ChildProcess.runXCTest(
            "ReactiveDiagnosticsXCTestTests.SequenceFixtures/test3Leaks", reportDirectory: directory)
        let runs = try await [first, second]
        #expect(runs.allSatisfy { $0.status != 0 })

        let files = try runs[0].reportFiles()
        #expect(files.count == 2, "\(files.map(\.lastPathComponent))")
        let reports = try files.map { try DiagnosticsReport.load(from: $0) }
        #expect(Set(reports.map(\.run.processID)).count == 2)
        for (file, report) in zip(files, reports) {
            #expect(
                file.lastPathComponent == "report-ReactiveDiagnosticsPackageTests.xctest-\(report.run.processID).json")
            #expect(report.findings.count == 1 && report.run.tests.count == 1)
            #expect(report.findings.first?.test == report.run.tests.first?.name)
        }
        #expect(Set(reports.compactMap { $0.findings.first?.label }) == ["install-leak", "sequence-3"])
    }
}
