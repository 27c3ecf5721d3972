import Foundation
@_spi(Integration) import ReactiveDiagnostics
import _ReactiveDiagnosticsBenchmarkHarness

/// Ledger register/unregister from 1, 2 and 4 threads at once.
///
/// The cost per operation is normalized by the cores actually available: with T threads on
/// C cores, `elapsed × min(T, C) / (T × operations)`. Without contention it stays equal to
/// the one-thread cost however many threads share the cores; a lock or cache line that
/// collapses under contention shows up as a higher cost.
enum LedgerBenchmarks {
    static func run(_ context: BenchmarkContext) -> [BenchmarkResult] {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let operations = context.quick ? 50_000 : 500_000
        let label = DiagnosticLabel("bench")
        var perThreads: [Int: [Double]] = [:]
        for _ in 0..<context.repetitions {
            for threads in [1, 2, 4] {
                let ledger = ResourceLedger()
                let group = DispatchGroup()
                let start = DispatchSemaphore(value: 0)
                let ready = DispatchSemaphore(value: 0)
                for _ in 0..<threads {
                    group.enter()
                    Thread.detachNewThread {
                        var window: [ResourceToken] = []
                        window.reserveCapacity(16)
                        ready.signal()
                        start.wait()
                        for _ in 0..<(operations / 16) {
                            for _ in 0..<16 {
                                window.append(
                                    ledger.register(kind: .subscription, label: label, stack: .none, test: .none))
                            }
                            for token in window { ledger.unregister(token) }
                            window.removeAll(keepingCapacity: true)
                        }
                        group.leave()
                    }
                }
                for _ in 0..<threads { ready.wait() }
                let begin = now()
                for _ in 0..<threads { start.signal() }
                group.wait()
                let elapsed = Double(now() - begin)
                // One "op" is a register or an unregister.
                let cost = elapsed * Double(min(threads, cores)) / Double(threads * operations * 2)
                perThreads[threads, default: []].append(cost)
            }
        }
        var results: [BenchmarkResult] = []
        for threads in [1, 2, 4] {
            results.append(
                BenchmarkResult(
                    name: "ledger.threads\(threads)", unit: "ns/op", statistics: Statistics(perThreads[threads]!),
                    notes: ["cores": "\(cores)"]))
        }
        let scaling = zip(perThreads[4]!, perThreads[1]!).map { $0 / $1 }
        results.append(
            BenchmarkResult(
                name: "ledger.scaling4vs1", unit: "×", statistics: Statistics(scaling), target: .atMost(3),
                notes: ["cores": "\(cores)"]))
        return results
    }
}
