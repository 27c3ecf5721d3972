import Foundation
import ReactiveDiagTool
import ReactiveDiagnosticsReport
import Testing

/// Test-scale sanity for the 100,000-finding target of the benchmark: 20,000 generated
/// findings go through show, gate, baseline and merge, and the results add up. (No timing
/// assertions here; the release-build benchmark measures time.)
@Suite("scale")
struct ScaleTests {
    /// `count` findings over `fingerprints` distinct fingerprints and 500 stacks, across 50 tests.
    static func report(findings count: Int, fingerprints: Int, processID: Int32 = 1) -> DiagnosticsReport {
        let image = ReportImage(id: 0, path: "/build/App.xctest", buildID: "abcdef")
        let stacks = (0..<500).map { id in
            ReportStack(
                id: id,
                frames: [
                    ReportFrame(
                        address: "0x\(String(0x5000 + id * 16, radix: 16))", image: 0,
                        offset: "0x\(String(0x5000 + id * 16, radix: 16))",
                        function: "App.Feature\(id).bind() -> ()", module: "App", category: .user),
                    ReportFrame(
                        address: "0x9000", image: 0, offset: "0x9000",
                        function:
                            "OpenCombine.Publisher.sink(receiveValue: (A.Output) -> ()) -> OpenCombine.AnyCancellable",
                        module: "OpenCombine", category: .framework),
                    ReportFrame(
                        address: "0x9100", image: 0, offset: "0x9100", function: "XCTest.XCTestCase.invokeTest() -> ()",
                        module: "XCTest", category: .framework),
                ], droppedFrames: 2)
        }
        let kinds = ["leakedSubscription", "valueAfterTermination", "wrongThread", "longAction"]
        let findings = (0..<count).map { index in
            let group = index % fingerprints
            let kind = kinds[group % kinds.count]
            return ReportFinding(
                id: index + 1, kind: kind, severity: kind == "longAction" ? .warning : .error,
                message: "finding \(index) of group \(group)", label: "stream.\(group % 97)",
                test: "AppTests.Case\(index % 50).test()",
                fingerprint: String(format: "%016llx", UInt64(group) &* 0x9E3779B97F4A7C15),
                policy: "fail", allocationStack: group % 500, time: Double(index) / 1000)
        }
        return DiagnosticsReport(
            run: RunInfo(
                processName: "App.xctest", processID: processID, startTime: Date(timeIntervalSince1970: 0),
                endTime: Date(timeIntervalSince1970: 60),
                tests: (0..<50).map {
                    TestRecord(name: "AppTests.Case\($0).test()", findings: count / 50, failed: true)
                }),
            findings: findings,
            ledger: LedgerSummary(
                kinds: [KindTotals(kind: "subscription", registered: count, peak: 900, live: 300)],
                liveAtEnd: (0..<300).map { (site: Int) in
                    LiveSite(kind: "subscription", label: "stream.\(site)", stack: site, count: 1)
                }),
            stacks: stacks, images: [image])
    }

    @Test("20,000 findings: show, show --format json, baseline and gate handle them and the numbers add up")
    func twentyThousand() throws {
        try withTemporaryDirectory { directory in
            try ReportFixtures.write(
                Self.report(findings: 20_000, fingerprints: 5_000), to: directory.appendingPathComponent("big.json"))

            let text = runTool(["show", "big.json", "--color", "never"], in: directory.path)
            #expect(text.code == 0)
            #expect(text.stdout.contains("Findings: 20000 (15000 errors, 5000 warnings) in 5000 groups"))
            #expect(text.stdout.contains("\n5000. WARNING longAction ×4"))

            let json = runTool(["show", "big.json", "--format", "json"], in: directory.path)
            let view = try JSONDecoder().decode(ReportView.self, from: Data(json.stdout.utf8))
            #expect(view.groups.count == 5_000)
            #expect(view.groups.reduce(0) { $0 + $1.count } == 20_000)
            #expect(view.stacks.count == 500, "each stack stored once")

            #expect(runTool(["baseline", "big.json", "-o", "baseline.json"], in: directory.path).code == 0)
            let baseline = try JSONDecoder().decode(
                Baseline.self, from: Data(contentsOf: directory.appendingPathComponent("baseline.json")))
            #expect(baseline.entries.count == 5_000)
            let clean = runTool(
                ["gate", "big.json", "--baseline", "baseline.json", "--fail-on", "warning"], in: directory.path)
            #expect(clean.code == 0)
            #expect(clean.stderr.contains("baseline: 20000 findings match it (5000 fingerprints)"))

            // Half the baseline gone: the other half of the fingerprints are new.
            var half = baseline
            half.entries = baseline.entries.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
            try half.encoded().write(to: directory.appendingPathComponent("half.json"))
            let gate = runTool(
                [
                    "gate", "big.json", "--baseline", "half.json", "--fail-on", "warning", "--sarif", "s.sarif",
                    "--junit", "j.xml", "--github-annotations",
                ], in: directory.path)
            #expect(gate.code == 1)
            #expect(gate.stderr.contains("(2500 fingerprints) beyond the baseline"))
            #expect(gate.stdout.split(separator: "\n").count == 51, "50 annotations and a notice about the rest")
            let junit = try readText(directory.appendingPathComponent("j.xml"))
            #expect(junit.contains("tests=\"10000\" failures=\"10000\""))
        }
    }

    @Test("merging 4 shards of 5,000 findings each keeps every finding and one copy of each stack")
    func mergeShards() throws {
        try withTemporaryDirectory { directory in
            for shard in 0..<4 {
                try ReportFixtures.write(
                    Self.report(findings: 5_000, fingerprints: 1_000, processID: Int32(shard + 1)),
                    to: directory.appendingPathComponent("shard-\(shard).json"))
            }
            let run = runTool(["merge", ".", "-o", "merged/all.json"], in: directory.path)
            #expect(run.code == 0)
            let merged = try DiagnosticsReport.load(from: directory.appendingPathComponent("merged/all.json"))
            #expect(merged.findings.count == 20_000)
            #expect(merged.stacks.count == 500)
            #expect(merged.run.processCount == 4)
            #expect(merged.ledger.liveAtEnd.count == 300)
            #expect(merged.ledger.liveAtEnd.allSatisfy { $0.count == 4 })
        }
    }
}
