import Foundation
import ReactiveDiagTool
import ReactiveDiagnostics
import _ReactiveDiagnosticsBenchmarkHarness

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

    /// An engine holding `count` findings from four real stacks, as a flood of findings from a
    /// few sites leaves it.
    static func engine(findings count: Int) -> DiagnosticsEngine {
        var configuration = Configuration()
        configuration.printsSummary = false
        configuration.capturesEventStacks = false
        let engine = DiagnosticsEngine(configuration: configuration)
        let stacks = (0..<4).map { site(engine, $0) }
        let kinds: [FindingKind] = [.valueAfterTermination, .demandExceeded, .leakedSubscription, .wrongThread]
        for index in 0..<count {
            engine.record(
                FindingDraft(
                    kind: kinds[index % 4], message: "finding \(index % 97) of the benchmark report",
                    label: "stream-\(index % 50)", test: TestIdentity(name: "BenchTests.test\(index % 200)()"),
                    allocationStack: stacks[index % 4], capturesEventStack: false, details: ["index": "\(index % 13)"]))
        }
        return engine
    }

    /// Encodes `report` `times` times with the single-pass writer (for `--profile reportWrite`:
    /// callgrind counts this function alone with `--toggle-collect='*reportWriteLoop*'`).
    @inline(never)
    static func reportWriteLoop(_ report: DiagnosticsReport, times: Int) -> Int {
        var bytes = 0
        for _ in 0..<times {
            bytes += (try? report.encoded())?.count ?? 0
        }
        return bytes
    }

    /// Decodes `data` `times` times with the single-pass reader (`--profile reportRead`,
    /// `--toggle-collect='*reportReadLoop*'`).
    @inline(never)
    static func reportReadLoop(_ data: Data, times: Int) -> Int {
        var findings = 0
        for _ in 0..<times {
            findings += (try? DiagnosticsReport.decode(data, source: "profile"))?.findings.count ?? 0
        }
        return findings
    }

    static func run(_ context: BenchmarkContext) -> [BenchmarkResult] {
        let count = context.quick ? 10_000 : 100_000
        let engine = engine(findings: count)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rd-bench-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("report.json").path
        var writes: [Double] = []
        var reads: [Double] = []
        var shows: [Double] = []
        var gates: [Double] = []
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
            for (command, arguments) in [("show", ["show", path, "--no-symbolize"]), ("gate", ["gate", path])] {
                let start = now()
                let status = ReactiveDiag.run(arguments: arguments, stdout: DiscardingSink(), stderr: DiscardingSink())
                precondition(status <= 1, "reactive-diag \(command) failed on the benchmark report")
                (command == "show"
                    ? { shows.append(Double(now() - start) / 1e9) } : { gates.append(Double(now() - start) / 1e9) })()
            }
        }
        return [
            BenchmarkResult(
                name: "report.write\(count / 1000)k", unit: "s", statistics: Statistics(writes), target: .atMost(1),
                notes: ["bytes": "\(bytes)", "findings": "\(count)"]),
            BenchmarkResult(
                name: "report.load\(count / 1000)k", unit: "s", statistics: Statistics(reads),
                notes: ["what": "DiagnosticsReport.load (decode + validate)"]),
            BenchmarkResult(
                name: "report.show\(count / 1000)k", unit: "s", statistics: Statistics(shows), target: .atMost(2),
                notes: ["what": "reactive-diag show, in-process, output discarded"]),
            BenchmarkResult(
                name: "report.gate\(count / 1000)k", unit: "s", statistics: Statistics(gates), target: .atMost(2),
                notes: ["what": "reactive-diag gate, in-process, no baseline"]),
        ]
    }
}

/// Output the benchmark does not keep.
final class DiscardingSink: OutputSink, @unchecked Sendable {
    var isTerminal: Bool { false }
    func write(_ text: String) {}
    func flush() {}
}
