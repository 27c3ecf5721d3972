import Foundation
import ReactiveDiagTool
import Testing

@Suite("show")
struct ShowCommandTests {
    @Test("the text view matches its golden file")
    func textGolden() throws {
        let run = runTool(["show", "shop-report.json", "--color", "never"])
        #expect(run.code == 0)
        #expect(run.stderr.isEmpty)
        try Golden.assertMatches(run.stdout, "show-shop-report.txt")
    }

    @Test("the JSON view matches its golden file and decodes as a ReportView")
    func jsonGolden() throws {
        let run = runTool(["show", "shop-report.json", "--format", "json"])
        #expect(run.code == 0)
        try Golden.assertMatches(run.stdout, "show-shop-report.json")
        let view = try JSONDecoder().decode(ReportView.self, from: Data(run.stdout.utf8))
        #expect(view.formatVersion == ReportView.currentFormatVersion)
        #expect(view.groups.count == 7)
        #expect(view.summary.findings.suppressed == 1)
        let leak = try #require(view.groups.first { $0.kind == "leakedSubscription" })
        #expect(leak.count == 2)
        #expect(leak.findingIDs == [1, 6])
        #expect(leak.tests.count == 2)
        for reference in view.groups.flatMap(\.stacks) {
            #expect(view.stacks.contains { $0.id == reference.stack }, "stack \(reference.stack) is in the table")
        }
    }

    @Test("the summary comes before the findings; groups are ordered by severity, kind, fingerprint")
    func order() {
        let text = runTool(["show", "shop-report.json", "--color", "never"]).stdout
        let positions = ["Findings: 8", "Live at end:", "Schedulers:", "Findings by fingerprint:"].map { heading in
            text.range(of: heading)?.lowerBound
        }
        #expect(positions.allSatisfy { $0 != nil })
        #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted())
        let headings = text.split(separator: "\n").filter { $0.first?.isNumber == true && $0.contains(". ") }
        let kinds = headings.map { $0.split(separator: " ")[2] }
        #expect(
            kinds == [
                "concurrentDelivery", "leakedSubscription", "pendingAction", "valueAfterTermination", "wrongThread",
                "longAction", "valueAfterCancel",
            ])
    }

    @Test("filters by kind, test, label and severity; suppressed findings only on request")
    func filters() throws {
        func groups(_ extra: [String]) throws -> [GroupView] {
            let run = runTool(["show", "shop-report.json", "--format", "json"] + extra)
            #expect(run.code == 0)
            return try JSONDecoder().decode(ReportView.self, from: Data(run.stdout.utf8)).groups
        }
        #expect(try groups(["--kind", "wrongThread,longAction"]).map(\.kind) == ["wrongThread", "longAction"])
        #expect(try groups(["--kind", "wrongThread", "--kind", "longAction"]).count == 2)
        #expect(
            try groups(["--label", "image."]).map(\.kind) == [
                "concurrentDelivery", "valueAfterTermination", "wrongThread",
            ])
        #expect(try groups(["--severity", "warning"]).allSatisfy { $0.severity != "info" })
        #expect(try groups(["--severity", "error"]).count == 5)
        let cart = try groups(["--test", "CartViewModelTests"])
        #expect(cart.map(\.kind) == ["leakedSubscription", "valueAfterCancel"])
        #expect(cart[0].count == 1, "only the finding of the matching test")
        #expect(try groups([]).contains { $0.kind == "uncancelledTimer" } == false)
        let withSuppressed = try groups(["--include-suppressed"])
        let timer = try #require(withSuppressed.first { $0.kind == "uncancelledTimer" })
        #expect(timer.suppressedBy == "uncancelledTimer label=poll.*")
    }

    @Test("no findings matching the filters says so")
    func noMatches() {
        let run = runTool(["show", "shop-report.json", "--color", "never", "--kind", "invalidDemand"])
        #expect(run.code == 0)
        #expect(run.stdout.contains("Findings: 0"))
        #expect(run.stdout.hasSuffix("No findings match the filters.\n"))
    }

    @Test("colour only when asked or on a terminal, never with NO_COLOR")
    func colour() {
        let escape = "\u{1B}["
        #expect(runTool(["show", "shop-report.json"]).stdout.contains(escape) == false, "not a terminal")
        #expect(runTool(["show", "shop-report.json", "--color", "always"]).stdout.contains(escape))
        #expect(runTool(["show", "shop-report.json", "--color", "never"]).stdout.contains(escape) == false)

        let terminal = StringSink(isTerminal: true)
        _ = ReactiveDiag.run(
            arguments: ["show", "shop-report.json"], stdout: terminal, stderr: StringSink(), environment: ["PATH": ""],
            currentDirectory: Fixtures.directory.path)
        #expect(terminal.text.contains(escape), "auto on a terminal")

        let noColor = StringSink(isTerminal: true)
        _ = ReactiveDiag.run(
            arguments: ["show", "shop-report.json"], stdout: noColor, stderr: StringSink(),
            environment: ["PATH": "", "NO_COLOR": "1"], currentDirectory: Fixtures.directory.path)
        #expect(noColor.text.contains(escape) == false, "NO_COLOR wins over a terminal")
    }

    @Test("several inputs are merged before they are shown; a directory means its reports")
    func severalInputs() throws {
        let files = runTool(["show", "shop-report.json", "shop-shard-2.json", "--format", "json"])
        #expect(files.code == 0)
        let view = try JSONDecoder().decode(ReportView.self, from: Data(files.stdout.utf8))
        #expect(view.run.processCount == 2)
        #expect(view.run.completeness == "merged")
        #expect(view.inputs == ["shop-report.json", "shop-shard-2.json"])
        let leak = try #require(view.groups.first { $0.kind == "leakedSubscription" })
        #expect(leak.count == 3, "the shard's leak has the same fingerprint")

        try withTemporaryDirectory { directory in
            for name in ["shop-shard-2.json", "shop-report.json"] {
                try FileManager.default.copyItem(at: Fixtures.url(name), to: directory.appendingPathComponent(name))
            }
            try Data("{}".utf8).write(to: directory.appendingPathComponent("notes.txt"))
            let run = runTool(["show", ".", "--format", "json"], in: directory.path)
            #expect(run.code == 0)
            let fromDirectory = try JSONDecoder().decode(ReportView.self, from: Data(run.stdout.utf8))
            #expect(fromDirectory.inputs == ["./shop-report.json", "./shop-shard-2.json"], "sorted by name")
            #expect(fromDirectory.groups == view.groups)
        }
    }

    @Test("--top-sites limits the live sites listed")
    func topSites() {
        let run = runTool(["show", "shop-report.json", "--color", "never", "--top-sites", "1"])
        #expect(run.stdout.contains("… 3 more sites"))
    }
}
