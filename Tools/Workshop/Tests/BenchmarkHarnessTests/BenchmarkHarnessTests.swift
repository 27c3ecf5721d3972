import Testing
import _ReactiveDiagnosticsBenchmarkHarness

/// How the benchmark decides a ratio has been measured often enough: the confidence interval
/// of its median, from order statistics.
@Suite("Benchmark harness")
struct BenchmarkHarnessTests {
    @Test func aTightRatioIsSettledAndAWideOneIsNot() {
        let tight = (0..<9).map { 1.10 + Double($0 % 3) * 0.005 }
        #expect(Measure.isSettled(tight, tolerance: 0.03))
        let wide = [0.6, 0.9, 1.0, 1.1, 1.2, 1.3, 1.7]
        #expect(!Measure.isSettled(wide, tolerance: 0.03))
        #expect(!Measure.isSettled([1.0, 1.0], tolerance: 0.03), "two samples say nothing of a median")
    }

    @Test func roundsStopAtTheMinimumOnceSettledAndAtTheMaximumOtherwise() {
        var calls = 0
        let settled = Measure.rounds(minimum: 7, maximum: 21, tolerance: 0.03) { _ in
            calls += 1
            return 1.05
        }
        #expect(settled.count == 7 && calls == 7)
        let noisy = Measure.rounds(minimum: 7, maximum: 21, tolerance: 0.03) { round in
            round.isMultiple(of: 2) ? 0.7 : 1.6
        }
        #expect(noisy.count == 21)
        let single = Measure.rounds(minimum: 3, maximum: 3, tolerance: 0.03) { _ in 2.0 }
        #expect(single.count == 3, "never past the maximum")
    }

    @Test func pairedMeasuresBothTwinsEachRoundAndAlternatesTheirOrder() {
        var order: [String] = []
        let run = Measure.paired(
            repetitions: 4, maximum: 4, tolerance: 0.03,
            baseline: {
                order.append("plain"); return 100
            },
            instrumented: {
                order.append("ours"); return 110
            })
        #expect(order == ["plain", "ours", "ours", "plain", "plain", "ours", "ours", "plain"])
        #expect(run.ratio.samples == [1.1, 1.1, 1.1, 1.1] && run.baseline.samples.count == 4)
    }
}
