import CReactiveDiagnostics
import Foundation
import ReactiveDiagnostics
import Runtime
import _ReactiveDiagnosticsBenchmarkHarness

/// Backtrace capture and interning at several depths, against Foundation's
/// `Thread.callStackReturnAddresses` and the Swift runtime's `Backtrace.capture()`.
enum CaptureBenchmarks {
    /// Recurses until the stack is at least `depth` frames deep, then runs `body` there.
    @inline(never)
    static func atDepth<T>(_ depth: Int, _ body: () -> T) -> T {
        depth <= 0 ? body() : atDepth(depth - 1, body)
    }

    static func run(_ context: BenchmarkContext) -> [BenchmarkResult] {
        var results: [BenchmarkResult] = []
        let interner = StackInterner()
        let operations = context.quick ? 20_000 : 200_000
        for depth in [8, 32, 64] {
            var raw: [Double] = []
            var intern: [Double] = []
            var full: [Double] = []
            var foundation: [Double] = []
            var captured = 0
            for _ in 0..<context.repetitions {
                atDepth(depth + 8) {
                    withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer.self, capacity: depth) { buffer in
                        raw.append(Measure.perOperation(operations) {
                            captured = Int(rdiag_backtrace(buffer.baseAddress!, Int32(depth)))
                        })
                        buffer.withMemoryRebound(to: UInt.self) { addresses in
                            let stack = UnsafeBufferPointer(addresses)
                            _ = interner.intern(stack)
                            intern.append(Measure.perOperation(operations) { blackHole(interner.intern(stack)) })
                        }
                    }
                    full.append(Measure.perOperation(operations) {
                        blackHole(StackCapture.capture(depth: depth, into: interner))
                    })
                    foundation.append(Measure.perOperation(operations / 20) {
                        blackHole(Thread.callStackReturnAddresses.count)
                    })
                }
            }
            let perFrame = raw.map { $0 / Double(max(captured, 1)) }
            results.append(BenchmarkResult(
                name: "capture.depth\(depth).perFrame", unit: "ns/frame", statistics: Statistics(perFrame),
                target: .atMost(8), notes: ["framesCaptured": "\(captured)"]))
            results.append(BenchmarkResult(
                name: "capture.depth\(depth).interning", unit: "ns", statistics: Statistics(intern), target: .atMost(60)))
            results.append(BenchmarkResult(
                name: "capture.depth\(depth).captureAndIntern", unit: "ns/capture", statistics: Statistics(full)))
            results.append(BenchmarkResult(
                name: "capture.depth\(depth).foundation", unit: "ns/capture", statistics: Statistics(foundation),
                notes: ["what": "Thread.callStackReturnAddresses (whole stack)"]))
            let speedups = zip(foundation, full).map { $0 / $1 }
            results.append(BenchmarkResult(
                name: "capture.depth\(depth).speedupOverFoundation", unit: "×", statistics: Statistics(speedups),
                target: .atLeast(10)))
        }
        var runtime: [Double] = []
        for _ in 0..<context.repetitions {
            runtime.append(atDepth(72) {
                Measure.perOperation(context.quick ? 5 : 20, warmUp: 2) {
                    blackHole(try? Backtrace.capture(limit: 64))
                }
            })
        }
        results.append(BenchmarkResult(
            name: "capture.depth64.swiftRuntimeBacktrace", unit: "ns/capture", statistics: Statistics(runtime),
            notes: ["what": "Runtime.Backtrace.capture(limit: 64)"]))
        return results
    }
}
