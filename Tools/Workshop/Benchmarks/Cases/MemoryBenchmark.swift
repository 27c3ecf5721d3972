import Foundation
@_spi(Integration) import ReactiveDiagnostics
import _ReactiveDiagnosticsBenchmarkHarness

/// Bytes the ledger and the interner add per live tracked resource, with 1,000,000 alive
/// from 1,000 distinct allocation sites. The tokens (8 bytes each, held by the resources
/// themselves) are not counted.
enum MemoryBenchmark {
    static func residentBytes() -> Int {
        #if os(Linux)
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
        #else
        return 0
        #endif
    }

    static func run(_ context: BenchmarkContext) -> [BenchmarkResult] {
        let count = context.quick ? 100_000 : 1_000_000
        var samples: [Double] = []
        for _ in 0..<max(1, context.repetitions / 3) {
            let ledger = ResourceLedger()
            let interner = StackInterner()
            let sites = (0..<1_000).map { site in
                interner.intern((0..<32).map { UInt(0x5555_0000_0000 + site * 4096 + $0 * 64) })
            }
            let labels = (0..<10).map { DiagnosticLabel("label-\($0)") }
            var tokens = [ResourceToken]()
            tokens.reserveCapacity(count)
            let before = residentBytes()
            for index in 0..<count {
                tokens.append(
                    ledger.register(
                        kind: .subscription, label: labels[index % 10], stack: sites[index % 1_000], test: .none))
            }
            let after = residentBytes()
            samples.append(Double(after - before) / Double(count))
            blackHole(tokens)
            for token in tokens { ledger.unregister(token) }
        }
        return [
            BenchmarkResult(
                name: "memory.perLiveResource", unit: "bytes/resource", statistics: Statistics(samples),
                target: .atMost(128), notes: ["alive": "\(count)", "sites": "1000"])
        ]
    }
}
