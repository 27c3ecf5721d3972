import Foundation
import OpenCombineShim
import ReactiveDiagnostics
import _ReactiveDiagnosticsBenchmarkHarness

/// What explaining one leaked subscription costs at a test's checkpoint: the walk of the
/// classic cycle (a strong-self `sink` stored in its owner's `Set<AnyCancellable>`), and a
/// subscription kept by a global (no cycle: the holders are looked for by scanning memory).
/// Nothing of this runs on the hot path; it runs once per leak site, only for leaks.
enum RetainPathBenchmarks {
    /// A view model with the classic leak.
    final class LeakingViewModel {
        var headlines: [String] = []
        var cancellables = Set<AnyCancellable>()
        let subject = PassthroughSubject<[String], Never>()
        private(set) var sink: Subscribers.Sink<[String], Never>?

        init() {
            let sink = Subscribers.Sink<[String], Never>(
                receiveCompletion: { _ in }, receiveValue: { self.headlines = $0 })
            subject.subscribe(sink)
            AnyCancellable(sink).store(in: &cancellables)
            self.sink = sink
        }
    }

    /// Where the "global" case keeps its subscriptions.
    nonisolated(unsafe) static var keeper = Set<AnyCancellable>()

    static func run(_ context: BenchmarkContext) -> [BenchmarkResult] {
        // The scan for holders reads every resident writable page, so its cost follows the
        // process's resident memory. The suites before this one freed what they built (a
        // million live resources, reports of 100,000 findings) but the C heap keeps those
        // pages: give them back, so the row measures a test process, not the benchmark's past.
        let residentBefore = MemoryBenchmark.residentBytes()
        #if os(Linux)
        _ = malloc_trim(0)
        #endif
        let engine = DiagnosticsEngine(
            configuration: {
                var configuration = Configuration()
                configuration.writesReport = false
                configuration.printsSummary = false
                return configuration
            }())
        let models = (0..<20).map { _ in LeakingViewModel() }
        let sinks = models.compactMap(\.sink)
        // The first explanation in a process also symbolizes the closure (llvm-symbolizer).
        let coldStart = now()
        let first = engine.retainPath(of: sinks[0])
        let cold = Double(now() - coldStart) / 1e6
        var cycle: [Double] = []
        var objects = 0
        for repetition in 0..<context.repetitions {
            let sink = sinks[(repetition + 1) % sinks.count]
            let start = now()
            let path = engine.retainPath(of: sink)
            cycle.append(Double(now() - start) / 1e6)
            objects = path.objectsVisited
        }

        let subject = PassthroughSubject<[String], Never>()
        let kept = Subscribers.Sink<[String], Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
        subject.subscribe(kept)
        AnyCancellable(kept).store(in: &keeper)
        var global: [Double] = []
        var holder = "-"
        // The first scan of a process maps its buffers and faults their pages: reported apart,
        // as the first cycle is.
        let firstScanStart = now()
        _ = engine.retainPath(of: kept)
        let firstScan = Double(now() - firstScanStart) / 1e6
        for _ in 0..<context.repetitions {
            let start = now()
            let path = engine.retainPath(of: kept)
            global.append(Double(now() - start) / 1e6)
            holder = path.holder ?? "not found"
        }
        keeper.removeAll()
        withExtendedLifetime((models, subject)) {}
        return [
            BenchmarkResult(
                name: "retainPaths.cycle", unit: "ms/leak", statistics: Statistics(cycle), target: .atMost(10),
                notes: [
                    "verdict": first.verdict.rawValue, "objects": "\(objects)",
                    "first in the process (ms)": String(format: "%.1f", cold),
                ]),
            BenchmarkResult(
                name: "retainPaths.heldByAGlobal", unit: "ms/leak", statistics: Statistics(global),
                target: .atMost(250),
                notes: [
                    "holder": holder, "resident memory (MB)": "\(MemoryBenchmark.residentBytes() / 1_000_000)",
                    "first in the process (ms)": String(format: "%.1f", firstScan),
                    "resident before the heap was trimmed (MB)": "\(residentBefore / 1_000_000)",
                ]),
        ]
    }
}

#if os(Linux)
/// glibc's `malloc_trim` (declared in `<malloc.h>`, which the Glibc module does not import):
/// returns the heap's free pages to the system.
@_silgen_name("malloc_trim")
private func malloc_trim(_ pad: Int) -> Int32
#endif
