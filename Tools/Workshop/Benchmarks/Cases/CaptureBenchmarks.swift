import CCapture
import Foundation
@_spi(Integration) import ReactiveDiagnostics
import Runtime
import _ReactiveDiagnosticsBenchmarkHarness

/// Backtrace capture and interning at several depths: our capture (`rdiag_capture_stack`, along
/// frame pointers libunwind confirmed), libunwind's own walk (`unw_backtrace`) and an unchecked
/// frame-pointer walk (the physical limit, for reference), against Foundation's
/// `Thread.callStackReturnAddresses` and the Swift runtime's `Backtrace.capture()`.
enum CaptureBenchmarks {
    /// Recurses until the stack is at least `depth` frames deep, then runs `body` there.
    /// Work after the recursive call keeps the optimizer from turning it into a loop.
    @inline(never)
    static func atDepth<T>(_ depth: Int, _ body: () -> T) -> T {
        if depth <= 0 {
            return body()
        }
        let result = atDepth(depth - 1, body)
        blackHole(depth)
        return result
    }

    static func run(_ context: BenchmarkContext) -> [BenchmarkResult] {
        var results: [BenchmarkResult] = []
        let interner = StackInterner()
        let operations = context.quick ? 20_000 : 200_000
        for depth in [8, 32, 64] {
            var raw: [Double] = []
            var libunwind: [Double] = []
            var framePointers: [Double] = []
            var intern: [Double] = []
            var full: [Double] = []
            var foundation: [Double] = []
            var captured = 0
            for _ in 0..<context.repetitions {
                atDepth(depth + 8) {
                    withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer.self, capacity: depth) { buffer in
                        raw.append(
                            Measure.perOperation(operations) {
                                captured = Int(rdiag_capture_stack(buffer.baseAddress!, Int32(depth)))
                            })
                        libunwind.append(
                            Measure.perOperation(operations) {
                                blackHole(rdiag_backtrace(buffer.baseAddress!, Int32(depth)))
                            })
                        framePointers.append(
                            Measure.perOperation(operations) {
                                blackHole(rdiag_frame_pointer_walk(buffer.baseAddress!, Int32(depth)))
                            })
                        buffer.withMemoryRebound(to: UInt.self) { addresses in
                            let stack = UnsafeBufferPointer(addresses)
                            _ = interner.intern(stack)
                            intern.append(Measure.perOperation(operations) { blackHole(interner.intern(stack)) })
                        }
                    }
                    full.append(
                        Measure.perOperation(operations) {
                            blackHole(StackCapture.capture(depth: depth, into: interner))
                        })
                    foundation.append(
                        Measure.perOperation(operations / 20) {
                            blackHole(Thread.callStackReturnAddresses.count)
                        })
                }
            }
            let frames = Double(max(captured, 1))
            results.append(
                BenchmarkResult(
                    name: "capture.depth\(depth).perFrame", unit: "ns/frame",
                    statistics: Statistics(raw.map { $0 / frames }),
                    target: .atMost(8),
                    notes: ["framesCaptured": "\(captured)", "what": "rdiag_capture_stack (StackCapture)"]))
            results.append(
                BenchmarkResult(
                    name: "capture.depth\(depth).libunwindPerFrame", unit: "ns/frame",
                    statistics: Statistics(libunwind.map { $0 / frames }), notes: ["what": "unw_backtrace alone"]))
            results.append(
                BenchmarkResult(
                    name: "capture.depth\(depth).framePointerPerFrame", unit: "ns/frame",
                    statistics: Statistics(framePointers.map { $0 / frames }),
                    notes: ["what": "an unchecked frame-pointer walk: the physical limit, for reference"]))
            results.append(
                BenchmarkResult(
                    name: "capture.depth\(depth).interning", unit: "ns", statistics: Statistics(intern),
                    target: .atMost(60)))
            results.append(
                BenchmarkResult(
                    name: "capture.depth\(depth).captureAndIntern", unit: "ns/capture", statistics: Statistics(full)))
            results.append(
                BenchmarkResult(
                    name: "capture.depth\(depth).foundation", unit: "ns/capture", statistics: Statistics(foundation),
                    notes: ["what": "Thread.callStackReturnAddresses (whole stack)"]))
            let speedups = zip(foundation, full).map { $0 / $1 }
            results.append(
                BenchmarkResult(
                    name: "capture.depth\(depth).speedupOverFoundation", unit: "×", statistics: Statistics(speedups),
                    target: .atLeast(10)))
        }
        var runtime: [Double] = []
        for _ in 0..<context.repetitions {
            runtime.append(
                atDepth(72) {
                    Measure.perOperation(context.quick ? 5 : 20, warmUp: 2) {
                        blackHole(try? Backtrace.capture(limit: 64))
                    }
                })
        }
        results.append(
            BenchmarkResult(
                name: "capture.depth64.swiftRuntimeBacktrace", unit: "ns/capture", statistics: Statistics(runtime),
                notes: ["what": "Runtime.Backtrace.capture(limit: 64)"]))
        return results
    }
}
