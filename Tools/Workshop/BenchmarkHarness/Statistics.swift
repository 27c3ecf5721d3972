/// Median and spread of repeated measurements.
public struct Statistics: Codable, Sendable {
    /// The middle sample.
    public var median: Double
    /// The smallest sample.
    public var minimum: Double
    /// The largest sample.
    public var maximum: Double
    /// Every sample, in measurement order.
    public var samples: [Double]

    /// The statistics of `samples` (at least one).
    public init(_ samples: [Double]) {
        precondition(!samples.isEmpty, "statistics need at least one sample")
        let sorted = samples.sorted()
        self.samples = samples
        minimum = sorted.first!
        maximum = sorted.last!
        let middle = sorted.count / 2
        median = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// Spread as ± percent of the median: half the min–max range.
    public var spreadPercent: Double {
        median == 0 ? 0 : (maximum - minimum) / 2 / median * 100
    }
}
