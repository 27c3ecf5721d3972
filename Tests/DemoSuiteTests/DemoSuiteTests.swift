import Foundation
import ReactiveDiagFix
import ReactiveDiagTool
import ReactiveDiagnostics
import ReactiveDiagnosticsTestSupport
import Testing

/// Runs the demo's test suite (Examples/Demo) as `Tools/demo.sh` does and checks what
/// ReactiveDiagnostics finds in it: every bug of the buggy app, in the test that made it, and
/// nothing in the fixed app.
///
/// It builds a second package, so it runs only when `REACTIVE_DIAGNOSTICS_DEMO_SUITE=1`
/// (`Tools/test.sh` and CI set it).
@Suite(
    "Demo suite", .serialized,
    .enabled(
        if: ProcessInfo.processInfo.environment["REACTIVE_DIAGNOSTICS_DEMO_SUITE"] == "1",
        "set REACTIVE_DIAGNOSTICS_DEMO_SUITE=1 (Tools/test.sh does) to build and run Examples/Demo"))
struct DemoSuiteTests {
    static let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Examples/Demo")

    /// Runs the demo's tests with reports in a fresh directory; returns the status and the reports.
    func runDemoSuite(
        fixed: Bool
    ) async throws -> (
        status: Int32, report: DiagnosticsReport, output: String, reports: [DiagnosticsReport]
    ) {
        let reports = try TemporaryDirectory("rd-demo")
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("REACTIVE_DIAGNOSTICS_") }
        environment["REACTIVE_DIAGNOSTICS_REPORT"] = reports.url.appendingPathComponent("report-%n-%p.json").path
        environment["REACTIVE_DIAGNOSTICS_SUMMARY"] = "0"
        environment["DEMO_FIXED"] = fixed ? "1" : "0"
        let result = try await ProcessRunner.run(
            "/usr/bin/env", arguments: ["swift", "test", "--package-path", Self.demo.path], environment: environment,
            timeout: .seconds(1_800))
        let files = reports.files.filter { $0.hasSuffix(".json") }
        #expect(files.count == 2, "one report from XCTest, one from Swift Testing: \(reports.files)")
        var findings: [ReportFinding] = []
        var loaded: [DiagnosticsReport] = []
        for file in files {
            let report = try DiagnosticsReport.load(from: reports.url.appendingPathComponent(file))
            loaded.append(report)
            findings += report.findings
        }
        var merged = try #require(loaded.first, "no report was written:\n\(result.standardError.suffix(2_000))")
        merged.findings = findings
        return (result.status, merged, result.standardOutput + result.standardError, loaded)
    }

    @Test func theBuggyAppFailsWithEveryBugInItsTest() async throws {
        let (status, report, output, reports) = try await runDemoSuite(fixed: false)
        #expect(status != 0, "the buggy app's tests must fail")
        let found = Set(report.findings.map { "\($0.kind) @ \($0.test ?? "?")" })
        let expected: Set<String> = [
            "leakedSubscription @ NewsAppTests.FeedViewModelTests/testRefreshShowsTheHeadlines",
            "leakedSubscription @ NewsAppTests.ImageLoaderTests/thumbnailFollowsTheNewestHeadline()",
            "prematureCancellation @ NewsAppTests.ImageLoaderTests/showsAPlaceholderWhileLoading()",
            "wrongThread @ NewsAppTests.SettingsStoreTests/appearingLoadsTheSettings()",
            "wrongThread @ NewsAppTests.SearchViewModelTests/typingShowsResults()",
            "uncancelledTimer @ NewsAppTests.ClockViewModelTests/testTicksWhileShown",
            "valueAfterTermination @ NewsAppTests.TickerTests/receivesThePrices()",
            "leakedResource @ NewsAppTests.BreakingNewsTests/showsTheLatestAlert()",
        ]
        #expect(found == expected, "\(output.suffix(3_000))")
        // One bug, one finding: a leaked chain's stages are folded into its one leak.
        #expect(
            report.findings.count == expected.count,
            "\(report.findings.map { "\($0.kind) \($0.label ?? "") @ \($0.test ?? "?")" })")
        #expect(report.findings.allSatisfy { $0.severity == .error && $0.policy == "fail" })
        // Each finding points into the app or the test: its allocation stack has a user frame.
        #expect(!output.contains("Expectation failed"), "the app works: only diagnostics fail the tests")

        // Every finding is placed at its source line in the report itself: the leak of refresh()
        // at the `.sink(` that the demo's "Bug:" comment marks.
        let source = try String(
            contentsOf: Self.demo.appendingPathComponent("Sources/NewsApp/FeedViewModel.swift"), encoding: .utf8
        )
        .split(separator: "\n", omittingEmptySubsequences: false)
        let bug = try #require(source.firstIndex { $0.contains("// Bug: the live feed never completes") })
        let sinkLine = try #require(source[bug...].firstIndex { $0.contains(".sink(") }) + 1
        var placed: [String: (file: String, line: Int)] = [:]
        for part in reports {
            #expect(part.sourceLines?.state == .resolved, "\(String(describing: part.sourceLines))")
            let stacks = Dictionary(uniqueKeysWithValues: part.stacks.map { ($0.id, $0) })
            for finding in part.findings {
                let culprit = FindingPlacement.culprit(of: finding, stacks: { stacks[$0] })
                #expect(
                    culprit?.frame.file?.contains("/Examples/Demo/") == true,
                    "\(finding.kind): \(String(describing: culprit))")
                if let culprit, let file = culprit.frame.file, let line = culprit.frame.line {
                    placed["\(finding.kind) @ \(finding.test ?? "?")"] = (file, line)
                }
            }
        }
        // reactive-diag fix on the real reports: the three findings with a mechanical fix (Tools/demo.sh
        // applies them in its step 6), each line checked against the text the report kept.
        let fixer = FindingFixer(displayRoot: Self.demo.path)
        var mechanical: Set<String> = []
        for part in reports {
            for (finding, outcome) in zip(part.findings, fixer.outcomes(for: part.findings, in: part)) {
                if case .refused(let reason) = outcome { Issue.record("\(finding.kind): refused: \(reason)") }
                if case .fix(let description, _) = outcome {
                    mechanical.insert("\(finding.kind) @ \(finding.test ?? "?")")
                    #expect(!description.contains("could not be checked"), "the report keeps the closure's line")
                }
            }
        }
        #expect(
            mechanical == [
                "leakedSubscription @ NewsAppTests.FeedViewModelTests/testRefreshShowsTheHeadlines",
                "leakedSubscription @ NewsAppTests.ImageLoaderTests/thumbnailFollowsTheNewestHeadline()",
                "prematureCancellation @ NewsAppTests.ImageLoaderTests/showsAPlaceholderWhileLoading()",
            ])
        let feed = try #require(
            placed["leakedSubscription @ NewsAppTests.FeedViewModelTests/testRefreshShowsTheHeadlines"])
        #expect(feed.file == Self.demo.appendingPathComponent("Sources/NewsApp/FeedViewModel.swift").path)
        #expect(feed.line == sinkLine)
        // The async twin, with nothing diagnosed by hand: the banner's task at its `Task {` line,
        // suspended at its `for await` line (an async stack's resume point).
        let banner = try String(
            contentsOf: Self.demo.appendingPathComponent("Sources/NewsApp/BreakingNewsBanner.swift"), encoding: .utf8
        )
        .split(separator: "\n", omittingEmptySubsequences: false)
        let taskBug = try #require(banner.firstIndex { $0.contains("// Bug: a task nobody keeps") })
        let taskLine = try #require(banner[taskBug...].firstIndex { $0.contains("Task {") }) + 1
        let loopLine = try #require(banner[taskBug...].firstIndex { $0.contains("for await") }) + 1
        let bannerPath = Self.demo.appendingPathComponent("Sources/NewsApp/BreakingNewsBanner.swift").path
        let task = try #require(placed["leakedResource @ NewsAppTests.BreakingNewsTests/showsTheLatestAlert()"])
        #expect(task.file == bannerPath)
        #expect(task.line == taskLine)
        let part = try #require(reports.first { report in report.findings.contains { $0.kind == "leakedResource" } })
        let finding = try #require(part.findings.first { $0.kind == "leakedResource" })
        let suspended = try #require(part.stacks.first { $0.id == finding.relatedStack })
        let waits = suspended.frames.first { $0.file == bannerPath }
        #expect(waits?.line == loopLine, "suspended at \(suspended.frames.map { "\($0.file ?? "?"):\($0.line ?? 0)" })")
    }

    @Test func theFixedAppPasses() async throws {
        let (status, report, output, _) = try await runDemoSuite(fixed: true)
        #expect(status == 0, "\(output.suffix(3_000))")
        #expect(report.findings.isEmpty)
        #expect(report.run.tests.count >= 2)
    }
}
