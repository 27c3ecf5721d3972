import Foundation
import ReactiveDiagnostics

/// Writing a report with 100,000 findings, and reading it back.
enum ReportBenchmarks {
    @inline(never)
    static func site(_ engine: DiagnosticsEngine, _ index: Int) -> StackID {
        // A handful of distinct real stacks, as a flood of findings from a few sites has.
        switch index % 4 {
        case 0: return engine.captureStack()
        case 1: return CaptureBenchmarks.atDepth(3) { engine.captureStack() }
        case 2: return CaptureBenchmarks.atDepth(5) { engine.captureStack() }
        default: return CaptureBenchmarks.atDepth(7) { engine.captureStack() }
        }
    }

    static func run(_ context: BenchmarkContext) -> [BenchmarkResult] {
        let count = context.quick ? 10_000 : 100_000
        var configuration = Configuration()
        configuration.printsSummary = false
        configuration.capturesEventStacks = false
        let engine = DiagnosticsEngine(configuration: configuration)
        let stacks = (0..<4).map { site(engine, $0) }
        let kinds: [FindingKind] = [.valueAfterTermination, .demandExceeded, .leakedSubscription, .wrongThread]
        for index in 0..<count {
            engine.record(FindingDraft(
                kind: kinds[index % 4], message: "finding \(index % 97) of the benchmark report",
                label: "stream-\(index % 50)", test: TestIdentity(name: "BenchTests.test\(index % 200)()"),
                allocationStack: stacks[index % 4], capturesEventStack: false, details: ["index": "\(index % 13)"]))
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rd-bench-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("report.json").path
        var writes: [Double] = []
        var reads: [Double] = []
        var bytes = 0
        for _ in 0..<max(1, context.repetitions / 2) {
            let start = now()
            _ = try? engine.writeReport(to: path)
            writes.append(Double(now() - start) / 1e9)
            bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            let readStart = now()
            let report = try? DiagnosticsReport.load(from: URL(fileURLWithPath: path))
            reads.append(Double(now() - readStart) / 1e9)
            precondition(report?.findings.count == count, "the report must hold every finding")
        }
        return [
            BenchmarkResult(
                name: "report.write\(count / 1000)k", unit: "s", statistics: Statistics(writes), target: .atMost(1),
                notes: ["bytes": "\(bytes)", "findings": "\(count)"]),
            BenchmarkResult(
                name: "report.load\(count / 1000)k", unit: "s", statistics: Statistics(reads), target: .atMost(2),
                notes: ["what": "DiagnosticsReport.load (decode + validate)"]),
        ]
    }
}
