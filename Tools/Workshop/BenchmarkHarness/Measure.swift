/// Measurement helpers: each returns nanoseconds per operation for one repetition.
public enum Measure {
    /// Runs `body` `operations` times after a warm-up and returns ns per operation.
    @inline(never)
    public static func perOperation(_ operations: Int, warmUp: Int? = nil, _ body: () -> Void) -> Double {
        for _ in 0..<(warmUp ?? max(operations / 10, 1)) { body() }
        let start = now()
        for _ in 0..<operations { body() }
        return Double(now() - start) / Double(operations)
    }

    /// Times one batch that performs `operations` operations in total.
    @inline(never)
    public static func batch(_ operations: Int, _ body: () -> Void) -> Double {
        let start = now()
        body()
        return Double(now() - start) / Double(operations)
    }

    /// Runs `round` (one repetition of a case: it measures both twins and returns their ratio)
    /// `minimum` times, then again while the median of the ratios is not yet known to within
    /// `tolerance` either side, up to `maximum` times in all; returns the ratios.
    ///
    /// "Known" is the 95% confidence interval of a median from order statistics (the samples
    /// of ranks n/2 ∓ 0.98·√n), which assumes nothing of the noise's shape: on a quiet machine
    /// a ratio stops at `minimum`, on a noisy one it is measured more often instead of being
    /// quoted from a few samples. The twins are still measured alternately, in the same run.
    ///
    /// ```swift
    /// let ratios = Measure.rounds(minimum: 7, maximum: 21, tolerance: 0.03) { _ in
    ///     let plain = measurePlain(), counted = measureCounted()
    ///     return counted / plain
    /// }
    /// ```
    public static func rounds(minimum: Int, maximum: Int, tolerance: Double, _ round: (Int) -> Double) -> [Double] {
        var ratios: [Double] = []
        while ratios.count < minimum || (ratios.count < maximum && !isSettled(ratios, tolerance: tolerance)) {
            ratios.append(round(ratios.count))
        }
        return ratios
    }

    /// Whether the median of `samples` is known to within `tolerance` (relative, either side):
    /// the 95% confidence interval of the median, between the order statistics of ranks
    /// n/2 ∓ 0.98·√n, lies within it.
    public static func isSettled(_ samples: [Double], tolerance: Double) -> Bool {
        guard samples.count >= 3 else { return false }
        let sorted = samples.sorted()
        let n = Double(sorted.count)
        let low = max(Int((n / 2 - 0.98 * n.squareRoot()).rounded(.down)), 1) - 1
        let high = min(Int((n / 2 + 0.98 * n.squareRoot()).rounded(.up)), sorted.count) - 1
        let median = Statistics(samples).median
        guard median > 0 else { return true }
        return sorted[high] - median <= tolerance * median && median - sorted[low] <= tolerance * median
    }

    /// Measures `baseline` and `instrumented` alternately `repetitions` times (so drift and
    /// noise hit both alike) and, while the median of their ratio is not settled to within
    /// `tolerance`, up to `maximum` times (see ``rounds(minimum:maximum:tolerance:_:)``);
    /// returns both series plus their per-repetition ratios.
    public static func paired(
        repetitions: Int, maximum: Int? = nil, tolerance: Double = 0.03, baseline: () -> Double,
        instrumented: () -> Double
    ) -> (baseline: Statistics, instrumented: Statistics, ratio: Statistics) {
        var base: [Double] = []
        var inst: [Double] = []
        let ratios = rounds(minimum: repetitions, maximum: maximum ?? repetitions, tolerance: tolerance) { repetition in
            // Alternate the order too, so neither side always runs on a warmer cache.
            let (b, i): (Double, Double)
            if repetition % 2 == 0 {
                b = baseline()
                i = instrumented()
            } else {
                i = instrumented()
                b = baseline()
            }
            base.append(b)
            inst.append(i)
            return i / b
        }
        return (Statistics(base), Statistics(inst), Statistics(ratios))
    }
}
