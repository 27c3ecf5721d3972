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

    /// Measures `baseline` and `instrumented` alternately `repetitions` times (so drift and
    /// noise hit both alike) and returns both series plus their per-repetition ratios.
    public static func paired(
        repetitions: Int, baseline: () -> Double, instrumented: () -> Double
    ) -> (baseline: Statistics, instrumented: Statistics, ratio: Statistics) {
        var base: [Double] = []
        var inst: [Double] = []
        var ratios: [Double] = []
        for repetition in 0..<repetitions {
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
            ratios.append(i / b)
        }
        return (Statistics(base), Statistics(inst), Statistics(ratios))
    }
}
