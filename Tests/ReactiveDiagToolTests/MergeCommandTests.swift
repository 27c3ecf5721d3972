import Foundation
import ReactiveDiagTool
import ReactiveDiagnosticsReport
import Testing

@Suite("merge")
struct MergeCommandTests {
    private func merge(_ names: [String], in directory: URL, output: String = "merged.json") throws -> DiagnosticsReport
    {
        let run = runTool(["merge"] + names.map { Fixtures.url($0).path } + ["-o", output], in: directory.path)
        #expect(run.code == 0, "\(run.stderr)")
        return try DiagnosticsReport.load(from: directory.appendingPathComponent(output))
    }

    @Test("two shards become one valid report: findings renumbered, tests and processes summed")
    func twoShards() throws {
        try withTemporaryDirectory { directory in
            let first = try ReportFixtures.load("shop-report.json")
            let second = try ReportFixtures.load("shop-shard-2.json")
            let merged = try merge(["shop-report.json", "shop-shard-2.json"], in: directory)
            #expect(merged.validationProblem() == nil)
            #expect(merged.run.completeness == .merged)
            #expect(merged.run.processCount == 2)
            #expect(merged.run.processID == first.run.processID)
            #expect(merged.run.tests.map(\.name) == first.run.tests.map(\.name) + second.run.tests.map(\.name))
            #expect(merged.run.startTime == second.run.startTime, "the earliest start")
            #expect(merged.run.endTime == second.run.endTime, "the latest end")
            #expect(merged.findings.map(\.id) == Array(1...11))
            #expect(
                merged.findings.map(\.fingerprint) == first.findings.map(\.fingerprint)
                    + second.findings.map(\.fingerprint))
        }
    }

    @Test("stacks are de-duplicated by frames (image and offset, not the raw address) and references renumbered")
    func stacks() throws {
        try withTemporaryDirectory { directory in
            let first = try ReportFixtures.load("shop-report.json")
            let second = try ReportFixtures.load("shop-shard-2.json")
            let merged = try merge(["shop-report.json", "shop-shard-2.json"], in: directory)
            #expect(
                merged.stacks.count == first.stacks.count + second.stacks.count - 1, "the cart leak's stack is shared")
            #expect(merged.stacks.map(\.id) == Array(0..<merged.stacks.count))
            #expect(merged.images.count == first.images.count, "same binaries, listed in another order by the shard")
            let leaks = merged.findings.filter { $0.kind == "leakedSubscription" }
            #expect(leaks.count == 3)
            #expect(Set(leaks.compactMap(\.allocationStack)).count == 1, "all three leaks point at one stack")
            let index = Dictionary(uniqueKeysWithValues: merged.stacks.map { ($0.id, $0) })
            let demand = try #require(merged.findings.first { $0.kind == "demandExceeded" })
            let stack = try #require(demand.allocationStack.flatMap { index[$0] })
            #expect(stack.frames.first?.function == "Shop.SearchViewModel.bindResults() -> ()")
            let image = try #require(stack.frames.first?.image)
            #expect(merged.images[image].path.hasSuffix("ShopPackageTests.xctest"), "image references remapped")
        }
    }

    @Test("ledger totals and live sites are summed; the peak is the sum of the peaks")
    func ledger() throws {
        try withTemporaryDirectory { directory in
            let merged = try merge(["shop-report.json", "shop-shard-2.json"], in: directory)
            let subscription = try #require(merged.ledger.kinds.first { $0.kind == "subscription" })
            #expect(subscription.registered == 148 + 61)
            #expect(subscription.live == 3 + 1)
            #expect(subscription.peak == 23 + 9)
            #expect(merged.ledger.kinds.map(\.kind) == ["subscription", "cancellable", "scheduledAction", "timer"])
            let cart = merged.ledger.liveAtEnd.filter { $0.label == "cart.refresh" }
            #expect(cart.count == 1, "same kind, label and stack: one site")
            #expect(cart.first?.count == 3)
            #expect(
                cart.first?.tests == [
                    "ShopTests.CartViewModelTests.testRefreshCancelsPreviousRequest()",
                    "ShopTests.ImageLoaderTests.testLoadDeliversOnMainQueue()",
                ])
            #expect(merged.ledger.liveAtEnd.reduce(0) { $0 + $1.count } == 6)
        }
    }

    @Test("schedulers merge by label: counts summed, histograms merged bucket by bucket, percentiles recomputed")
    func schedulers() throws {
        try withTemporaryDirectory { directory in
            let first = try ReportFixtures.load("shop-report.json")
            let second = try ReportFixtures.load("shop-shard-2.json")
            let merged = try merge(["shop-report.json", "shop-shard-2.json"], in: directory)
            #expect(merged.schedulers.map(\.label) == ["main-ui", "background"])
            let a = try #require(first.schedulers.first { $0.label == "main-ui" })
            let b = try #require(second.schedulers.first { $0.label == "main-ui" })
            let ui = merged.schedulers[0]
            #expect(ui.scheduled == a.scheduled + b.scheduled)
            #expect(ui.executed == a.executed + b.executed)
            #expect(ui.threadViolations == a.threadViolations + b.threadViolations)
            #expect(ui.latency.count == a.latency.count + b.latency.count)
            #expect(ui.latency.buckets.reduce(0) { $0 + $1.count } == ui.latency.count)
            #expect(ui.latency.buckets.map(\.lowerNanos) == ui.latency.buckets.map(\.lowerNanos).sorted())
            #expect(Set(ui.latency.buckets.map(\.lowerNanos)).count == ui.latency.buckets.count, "one bucket per range")
            #expect(ui.latency.minNanos == min(a.latency.minNanos, b.latency.minNanos))
            #expect(ui.latency.maxNanos == max(a.latency.maxNanos, b.latency.maxNanos))
            let mean =
                (a.latency.meanNanos * Double(a.latency.count) + b.latency.meanNanos * Double(b.latency.count))
                / Double(a.latency.count + b.latency.count)
            #expect(abs(ui.latency.meanNanos - mean) < 0.001)
            #expect(ui.latency.p50Nanos <= ui.latency.p90Nanos && ui.latency.p90Nanos <= ui.latency.p99Nanos)
            #expect(ui.latency.p50Nanos >= min(a.latency.p50Nanos, b.latency.p50Nanos))
            #expect(ui.latency.p50Nanos <= max(a.latency.p50Nanos, b.latency.p50Nanos))
            #expect(ui.threads.first { $0.isMainQueue }?.count == 304 + 118)
            #expect(merged.schedulers[1] == first.schedulers[1], "a scheduler of one shard is kept as it is")
        }
    }

    @Test("percentiles come from the merged buckets: a known distribution")
    func knownDistribution() throws {
        // 90 samples in [1000, 1064) and 10 in [4096, 4352): p50 and p90 in the first bucket, p99 in the second.
        func summary(_ buckets: [HistogramBucket], minimum: UInt64, maximum: UInt64) -> SchedulerSummary {
            let count = buckets.reduce(0) { $0 + $1.count }
            return SchedulerSummary(
                label: "s", scheduled: count, executed: count,
                latency: LatencySummary(
                    count: count, minNanos: minimum, maxNanos: maximum, meanNanos: 1500,
                    p50Nanos: 0, p90Nanos: 0, p99Nanos: 0, buckets: buckets))
        }
        let low = summary(
            [HistogramBucket(lowerNanos: 1024, upperNanos: 1088, count: 90)], minimum: 1030, maximum: 1080)
        let high = summary(
            [HistogramBucket(lowerNanos: 4096, upperNanos: 4352, count: 10)], minimum: 4100, maximum: 4300)
        try withTemporaryDirectory { directory in
            var one = try ReportFixtures.load("shop-shard-2.json")
            one.schedulers = [low]
            var two = try ReportFixtures.load("shop-shard-2.json")
            two.schedulers = [high]
            try ReportFixtures.write(one, to: directory.appendingPathComponent("one.json"))
            try ReportFixtures.write(two, to: directory.appendingPathComponent("two.json"))
            #expect(runTool(["merge", "one.json", "two.json", "-o", "m.json"], in: directory.path).code == 0)
            let merged = try DiagnosticsReport.load(from: directory.appendingPathComponent("m.json"))
            let latency = merged.schedulers[0].latency
            #expect(latency.count == 100)
            #expect(latency.p50Nanos == 1056, "midpoint of [1024, 1088)")
            #expect(latency.p90Nanos == 1056, "rank 90 is the last sample of the first bucket")
            #expect(latency.p99Nanos == 4224, "midpoint of [4096, 4352)")
            #expect(latency.minNanos == 1030 && latency.maxNanos == 4300)
            #expect(abs(latency.meanNanos - 1500) < 0.001)
        }
    }

    @Test("merging is deterministic, and merging a report with itself doubles the counts, not the stacks")
    func deterministicAndIdempotentStacks() throws {
        try withTemporaryDirectory { directory in
            _ = try merge(["shop-report.json", "shop-shard-2.json"], in: directory, output: "a.json")
            _ = try merge(["shop-report.json", "shop-shard-2.json"], in: directory, output: "b.json")
            let a = try Data(contentsOf: directory.appendingPathComponent("a.json"))
            let b = try Data(contentsOf: directory.appendingPathComponent("b.json"))
            #expect(a == b)

            let single = try ReportFixtures.load("shop-report.json")
            let doubled = try merge(["shop-report.json", "shop-report.json"], in: directory, output: "twice.json")
            #expect(doubled.stacks.count == single.stacks.count)
            #expect(doubled.images.count == single.images.count)
            #expect(doubled.findings.count == 2 * single.findings.count)
            #expect(doubled.ledger.liveAtEnd.count == single.ledger.liveAtEnd.count)
            #expect(doubled.ledger.liveAtEnd.map(\.count) == single.ledger.liveAtEnd.map { 2 * $0.count })
        }
    }

    @Test("a merged report is itself a valid input: merge of merges, show and gate read it")
    func mergedIsAnInput() throws {
        try withTemporaryDirectory { directory in
            _ = try merge(["shop-report.json"], in: directory, output: "one.json")
            let again = runTool(
                ["merge", "one.json", Fixtures.url("shop-shard-2.json").path, "-o", "two.json"], in: directory.path)
            #expect(again.code == 0)
            let direct = try merge(["shop-report.json", "shop-shard-2.json"], in: directory, output: "direct.json")
            let nested = try DiagnosticsReport.load(from: directory.appendingPathComponent("two.json"))
            #expect(nested.findings == direct.findings)
            #expect(nested.stacks == direct.stacks)
            #expect(runTool(["show", "two.json"], in: directory.path).code == 0)
        }
    }

    /// A crash journal holding `report`'s findings, as a dying test process leaves it.
    static func journal(of report: DiagnosticsReport) -> Data {
        var data = JournalEntry.run(report.run).jsonLine()
        report.images.forEach { data.append(JournalEntry.image($0).jsonLine()) }
        report.stacks.forEach { data.append(JournalEntry.stack($0).jsonLine()) }
        report.findings.forEach { data.append(JournalEntry.finding($0).jsonLine()) }
        data.append(Data(#"{"finding":{"id":99,"kind":"cut short"#.utf8))  // the crash hit mid-line
        return data
    }

    @Test("crash journals join the inputs as partial reports; a broken journal is an error")
    func journals() throws {
        try withTemporaryDirectory { directory in
            let fixture = try DiagnosticsReport.load(from: Fixtures.url("shop-report.json"))
            let shards = directory.appendingPathComponent("shards")
            try FileManager.default.createDirectory(at: shards, withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                at: Fixtures.url("shop-report.json"), to: shards.appendingPathComponent("a.json"))
            try Self.journal(of: fixture).write(to: shards.appendingPathComponent("b.journal.jsonl"))
            let run = runTool(["merge", "shards", "-o", "m.json"], in: directory.path)
            #expect(run.code == 0)
            #expect(
                run.stderrLines.first
                    == "reactive-diag: note: shards/b.journal.jsonl: crash journal of a test process that did not finish; "
                    + "its findings are included (partial: no ledger or scheduler statistics)")
            let merged = try DiagnosticsReport.load(from: directory.appendingPathComponent("m.json"))
            #expect(merged.findings.count == 2 * fixture.findings.count)
            #expect(merged.run.processCount == 2)

            let only = directory.appendingPathComponent("only")
            try FileManager.default.createDirectory(at: only, withIntermediateDirectories: true)
            try Self.journal(of: fixture).write(to: only.appendingPathComponent("c.journal.jsonl"))
            let shown = runTool(["show", "only", "--format", "json"], in: directory.path)
            #expect(shown.code == 0)
            #expect(
                shown.stdout.contains("\"completeness\":\"partial\"")
                    || shown.stdout.contains("\"completeness\" : \"partial\""))

            let broken = directory.appendingPathComponent("broken")
            try FileManager.default.createDirectory(at: broken, withIntermediateDirectories: true)
            var corrupt = Data("{\"nonsense\":1}\n".utf8)
            corrupt.append(Self.journal(of: fixture))
            try corrupt.write(to: broken.appendingPathComponent("d.journal.jsonl"))
            let rejected = runTool(["show", "broken"], in: directory.path)
            #expect(rejected.code == 2)
            #expect(
                rejected.stderrLines.last?.hasPrefix("reactive-diag: broken/d.journal.jsonl: invalid report: line 1:")
                    == true,
                "\(rejected.stderrLines)")
        }
    }
}
