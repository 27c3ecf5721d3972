import Foundation
import ReactiveDiagTool
import Testing

@Suite("baseline")
struct BaselineCommandTests {
    @Test("the baseline of the fixture report matches its golden file")
    func golden() throws {
        try withTemporaryDirectory { directory in
            let run = runTool(
                ["baseline", Fixtures.url("shop-report.json").path, "-o", "baseline.json"], in: directory.path)
            #expect(run.code == 0)
            #expect(run.stdout.isEmpty)
            #expect(run.stderrLines == ["reactive-diag: accepted 7 fingerprints (8 findings) in baseline.json"])
            try Golden.assertMatches(try readText(directory.appendingPathComponent("baseline.json")), "baseline.json")
        }
    }

    @Test("round trip: a report gates clean against its own baseline, and the file reads back equal")
    func roundTrip() throws {
        try withTemporaryDirectory { directory in
            let reports = [Fixtures.url("shop-report.json").path, Fixtures.url("shop-shard-2.json").path]
            #expect(runTool(["baseline"] + reports + ["-o", "ci/baseline.json"], in: directory.path).code == 0)
            let url = directory.appendingPathComponent("ci/baseline.json")
            let data = try Data(contentsOf: url)
            let baseline = try JSONDecoder().decode(Baseline.self, from: data)
            #expect(baseline.baselineVersion == 1)
            #expect(try baseline.encoded() == data, "encoding is stable")
            #expect(baseline.entries.map(\.kind) == baseline.entries.map(\.kind).sorted())
            #expect(
                Set(baseline.entries.map(\.fingerprint)).count == baseline.entries.count, "one entry per fingerprint")
            #expect(
                baseline.entries.contains { $0.kind == "uncancelledTimer" } == false,
                "suppressed findings are not accepted")

            for failOn in ["error", "warning", "info"] {
                let gate = runTool(
                    ["gate"] + reports + ["--baseline", "ci/baseline.json", "--fail-on", failOn], in: directory.path)
                #expect(gate.code == 0, "--fail-on \(failOn): \(gate.stderr)")
            }
            // Regenerating gives the same bytes (no timestamps, no machine paths).
            #expect(runTool(["baseline"] + reports + ["-o", "again.json"], in: directory.path).code == 0)
            let again = try Data(contentsOf: directory.appendingPathComponent("again.json"))
            #expect(again == data)
        }
    }

    @Test("each entry has a readable one-line summary")
    func summaries() throws {
        let report = try ReportFixtures.load("shop-report.json")
        let baseline = Baseline(accepting: report)
        let leak = try #require(baseline.entries.first { $0.kind == "leakedSubscription" })
        #expect(
            leak.summary
                == "error leakedSubscription \"cart.refresh\" at Shop.CartViewModel.bind(to: Shop.CartService) -> () "
                + "(×2 in 2 tests): A subscription labelled \"cart.refresh\" is still alive at the end of its test: "
                + "it never completed, failed or was cancelled.")
        #expect(leak.test == "ShopTests.CartViewModelTests.testRefreshCancelsPreviousRequest()")
        #expect(baseline.entries.allSatisfy { !$0.summary.contains("\n") })
    }

    @Test("an unwritable output is exit 2 with one line")
    func unwritable() throws {
        try withTemporaryDirectory { directory in
            try Data().write(to: directory.appendingPathComponent("file"))
            let run = runTool(
                ["baseline", Fixtures.url("shop-report.json").path, "-o", "file/baseline.json"], in: directory.path)
            #expect(run.code == 2)
            #expect(run.stderrLines.count == 1)
            #expect(
                run.stderrLines.first?.hasPrefix("reactive-diag: file/baseline.json: cannot write the file:") == true)
        }
    }
}
