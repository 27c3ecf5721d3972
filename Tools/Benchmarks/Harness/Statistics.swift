/// Median and spread of repeated measurements.
struct Statistics: Codable, Sendable {
    var median: Double
    var minimum: Double
    var maximum: Double
    var samples: [Double]

    init(_ samples: [Double]) {
        precondition(!samples.isEmpty, "statistics need at least one sample")
        let sorted = samples.sorted()
        self.samples = samples
        minimum = sorted.first!
        maximum = sorted.last!
        let middle = sorted.count / 2
        median = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// Spread as ± percent of the median: half the min–max range.
    var spreadPercent: Double {
        median == 0 ? 0 : (maximum - minimum) / 2 / median * 100
    }
}
