import Foundation
@_spi(Integration) import ReactiveDiagnostics
import ReactiveDiagnosticsSymbolication
import ReactiveDiagnosticsTestSupport
import Testing

/// A real diagnosed stream leaks here, the engine writes the report, and every output places
/// the finding at the line that subscribed: the report JSON, SARIF (valid against the official
/// schema), the GitHub annotations, JUnit (valid against Jenkins' XSD) and the HTML page.
@Suite("source lines, end to end")
struct SourceLinesEndToEndTests {
    /// The package root: paths in CI outputs are relative to it.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let thisFile = "Tests/ReactiveDiagToolTests/SourceLinesEndToEndTests.swift"

    /// Leaks one subscription in a test of `engine` (alive until the engine is gone); returns
    /// the line that subscribed.
    func leak(in engine: DiagnosticsEngine) -> Int {
        let checkpoint = engine.beginTest(named: "SourceLines.leak()", serial: false)
        let (monitor, line) = TestIdentity.$current.withValue(checkpoint.test) {
            let monitor = engine.makeStreamMonitor(label: DiagnosticLabel("orders")); let line = #line
            monitor.receivedSubscription()
            return (monitor, line)
        }
        _ = engine.finishTest(checkpoint)
        withExtendedLifetime(monitor) {}
        return line
    }

    @Test(
        .enabled(
            if: SourceLineResolver.shared.symbolizer != nil, "needs llvm-symbolizer (the Swift toolchain ships it)"))
    func everyOutputPlacesTheFindingAtItsLine() async throws {
        let directory = try TemporaryDirectory()
        let engine = quietEngine(settle: .milliseconds(50)) { $0.resolvesSourceLines = true }
        let line = leak(in: engine)
        let report = directory.url.appendingPathComponent("report.json")
        try engine.writeReport(to: report.path)

        // The report JSON itself carries the culprit's file and line.
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
        #expect(json["schemaVersion"] as? Int == DiagnosticsReport.currentSchemaVersion)
        let lines = try #require(json["sourceLines"] as? [String: Any])
        #expect(lines["state"] as? String != "missing", "\(lines)")
        let finding = try #require(
            (json["findings"] as? [[String: Any]])?.first { $0["kind"] as? String == "leakedSubscription" })
        let stackID = try #require(finding["allocationStack"] as? Int)
        let stack = try #require((json["stacks"] as? [[String: Any]])?.first { $0["id"] as? Int == stackID })
        let frame = try #require((stack["frames"] as? [[String: Any]])?.first { $0["category"] as? String == "user" })
        #expect(frame["file"] as? String == #filePath)
        #expect(frame["line"] as? Int == line)
        #expect((frame["column"] as? Int ?? 0) > 0)

        // The CI outputs, paths relative to the package root.
        let run = runTool(
            [
                "gate", report.path, "--sarif", "out.sarif", "--junit", "out.xml", "--github-annotations",
                "--source-root", Self.packageRoot.path,
            ],
            environment: ["PATH": ""], in: directory.url.path)
        #expect(run.code == 1)
        let sarif = try Data(contentsOf: directory.url.appendingPathComponent("out.sarif"))
        if let problems = try await SchemaValidators.sarifProblems(sarif) {
            #expect(problems == [])
        }
        let log = try #require(try JSONSerialization.jsonObject(with: sarif) as? [String: Any])
        let result = try #require(((log["runs"] as? [[String: Any]])?.first?["results"] as? [[String: Any]])?.first)
        let physical = try #require(
            ((result["locations"] as? [[String: Any]])?.first)?["physicalLocation"] as? [String: Any])
        #expect((physical["artifactLocation"] as? [String: Any])?["uri"] as? String == Self.thisFile)
        #expect((physical["artifactLocation"] as? [String: Any])?["uriBaseId"] as? String == "SRCROOT")
        #expect((physical["region"] as? [String: Any])?["startLine"] as? Int == line)

        #expect(run.stdout.hasPrefix("::error file=\(Self.thisFile),line=\(line),col="), "\(run.stdout.prefix(300))")
        let junit = try readText(directory.url.appendingPathComponent("out.xml"))
        #expect(junit.contains("file=\"\(Self.thisFile)\" line=\"\(line)\""))
        if let problems = try await SchemaValidators.junitProblems(junit) {
            #expect(problems == [])
        }

        let html = runTool(["html", report.path, "-o", "page.html"], environment: ["PATH": ""], in: directory.url.path)
        #expect(html.code == 0)
        let page = try readText(directory.url.appendingPathComponent("page.html"))
        #expect(page.contains("SourceLinesEndToEndTests.swift:\(line)"))
        #expect(page.contains("let monitor = engine.makeStreamMonitor"), "the source line itself, read from the file")
    }

    @Test("without a symbolizer the report says why lines are missing, still gates, and symbolize fills them in")
    func withoutASymbolizer() async throws {
        let directory = try TemporaryDirectory()
        var configuration = Configuration()
        configuration.writesReport = false
        configuration.printsSummary = false
        configuration.settleTime = .milliseconds(50)
        let blind = SourceLineResolver(
            symbolizer: nil, unavailableReason: "llvm-symbolizer was not found beside swift or on PATH")
        let engine = DiagnosticsEngine(configuration: configuration, sourceLineResolver: blind)
        let line = leak(in: engine)
        let path = directory.url.appendingPathComponent("report.json").path
        try engine.writeReport(to: path)
        let report = try DiagnosticsReport.load(from: URL(fileURLWithPath: path))
        let status = try #require(report.sourceLines)
        #expect(status.state == .missing && status.resolvedUserFrames == 0 && status.userFrames > 0)
        #expect(status.reason == "llvm-symbolizer was not found beside swift or on PATH")
        #expect(report.stacks.allSatisfy { $0.frames.allSatisfy { $0.file == nil } })

        let gate = runTool(["gate", path, "--sarif", "out.sarif"], environment: ["PATH": ""], in: directory.url.path)
        #expect(gate.code == 1, "the verdict does not depend on lines")
        let sarif = try Data(contentsOf: directory.url.appendingPathComponent("out.sarif"))
        if let problems = try await SchemaValidators.sarifProblems(sarif) {
            #expect(problems == [])
        }
        let show = runTool(["show", path, "--no-symbolize"], environment: ["PATH": ""], in: directory.url.path)
        #expect(show.stdout.contains("file:line missing: llvm-symbolizer was not found beside swift or on PATH"))

        guard let symbolizer = SourceLineResolver.shared.symbolizer else { return }
        let filled = runTool(
            ["symbolize", path, "-o", "symbolized.json", "--symbolizer", symbolizer.path], environment: ["PATH": ""],
            in: directory.url.path)
        #expect(filled.code == 0, "\(filled.stderr)")
        let symbolized = try DiagnosticsReport.load(from: directory.url.appendingPathComponent("symbolized.json"))
        #expect(symbolized.sourceLines?.state != .missing)
        let finding = try #require(symbolized.findings.first)
        let stacks = Dictionary(uniqueKeysWithValues: symbolized.stacks.map { ($0.id, $0) })
        let culprit = try #require(FindingPlacement.culprit(of: finding, stacks: { stacks[$0] }))
        #expect(culprit.frame.file == #filePath && culprit.frame.line == line)
    }
}
