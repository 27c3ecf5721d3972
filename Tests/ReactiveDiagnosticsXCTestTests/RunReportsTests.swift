import ReactiveDiagnosticsTestSupport
import Foundation
import ReactiveDiagnostics
import ReactiveDiagnosticsXCTest
import Testing

/// Writing the report at the end of the run: atomic, rewritten with the latest state,
/// skipped when nothing changed.
@Suite("Run reports")
struct RunReportsTests {
    func makeEngine(reportIn directory: URL) -> DiagnosticsEngine {
        var configuration = Configuration()
        configuration.reportPath = directory.appendingPathComponent("report-%p.json").path
        configuration.printsSummary = false
        configuration.settleTime = .milliseconds(20)
        configuration.resolvesSourceLines = false
        return DiagnosticsEngine(configuration: configuration)
    }

    @Test func writesOnceThenOnlyWhenTheStateChanges() throws {
        let directory = try ChildProcess.makeReportDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let engine = makeEngine(reportIn: directory)
        let first = engine.beginTest(named: "RunReportsTests.first", serial: false)
        _ = engine.finishTest(first)

        let url = try #require(RunReports.write(engine))
        #expect(url.path == engine.configuration.resolvedReportPath)
        #expect(try DiagnosticsReport.load(from: url).run.tests.map(\.name) == ["RunReportsTests.first"])
        #expect(RunReports.write(engine) == nil, "nothing changed: not written again")
        try FileManager.default.removeItem(at: url)
        #expect(RunReports.write(engine) == url, "the file went: written again, though nothing changed")

        let second = engine.beginTest(named: "RunReportsTests.second", serial: false)
        let token = TestIdentity.$current.withValue(second.test) { engine.track(.subscription, label: "late") }
        let outcome = engine.finishTest(second)
        #expect(outcome.failures.map(\.label) == ["late"])
        #expect(RunReports.write(engine) == url, "a new test and finding: rewritten")
        let report = try DiagnosticsReport.load(from: url)
        #expect(report.run.tests.map(\.name) == ["RunReportsTests.first", "RunReportsTests.second"])
        #expect(report.findings.map(\.label) == ["late"])
        engine.untrack(token)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [url.lastPathComponent])
    }

    @Test func onlyTheEndTimeMayDiffer() {
        let engine = DiagnosticsEngine(configuration: Configuration())
        let report = engine.makeReport()
        var later = report
        later.run.endTime = report.run.endTime.addingTimeInterval(5)
        #expect(RunReports.isCurrent(later, comparedWith: report))
        var changed = report
        changed.run.tests.append(TestRecord(name: "x", findings: 0, failed: false))
        #expect(!RunReports.isCurrent(changed, comparedWith: report))
    }
}
