import ReactiveDiagnosticsReport
import Synchronization

/// A lock-free log-linear histogram of durations in nanoseconds.
///
/// Values are bucketed by power of two with 16 linear sub-buckets each (about 6% relative
/// resolution, like an HDR histogram with one significant digit and a bit), from 0 ns to
/// about 292 years. Recording is two relaxed atomic adds (the bucket and the sum; the count is
/// the buckets' sum) and two running extremes (loads unless they move); the sum and extremes
/// are kept per thread stripe, so threads recording at once share no line but a bucket's.
///
/// ```swift
/// let histogram = LatencyHistogram()
/// histogram.record(nanoseconds: 1_500)
/// assert(histogram.summary().count == 1)
/// ```
@_spi(Integration) public final class LatencyHistogram: Sendable {
    static let subBucketBits = 4
    static let subBuckets = 1 << subBucketBits
    static let bucketCount = (64 - subBucketBits + 1) * subBuckets

    private let buckets = AtomicCounters(count: LatencyHistogram.bucketCount)
    /// Sum, minimum and maximum, a stripe per thread (the buckets are spread over many lines
    /// already; these would be one line every thread writes).
    private let totals = StripedCounters(count: 3)
    private static let sum = 0
    private static let minimum = 1
    private static let maximum = 2

    /// Creates an empty histogram.
    public init() {
        totals.setEveryStripe(Self.minimum, to: Int.max)
    }

    @inline(__always)
    static func bucketIndex(_ value: UInt64) -> Int {
        if value < UInt64(subBuckets) {
            return Int(value)
        }
        let exponent = 63 - value.leadingZeroBitCount
        let shift = exponent - subBucketBits
        let sub = Int((value >> UInt64(shift)) & UInt64(subBuckets - 1))
        return (shift + 1) * subBuckets + sub
    }

    static func lowerBound(ofBucket index: Int) -> UInt64 {
        if index < subBuckets {
            return UInt64(index)
        }
        let shift = index / subBuckets - 1
        let sub = UInt64(index % subBuckets)
        return (UInt64(subBuckets) | sub) << UInt64(shift)
    }

    /// Records one duration.
    @inline(__always)
    public func record(nanoseconds: UInt64) {
        buckets.add(Self.bucketIndex(nanoseconds), 1)
        totals.add(Self.sum, Int(clamping: nanoseconds))
        noteExtremes(nanoseconds: nanoseconds)
    }

    /// Keeps `nanoseconds` in the minimum and maximum only: for a value that is not a sample
    /// (see ``SchedulerProbe``'s duration sampling), so that the extremes stay those of every
    /// value while the distribution is the samples'. Loads only, unless an extreme moves.
    @inline(__always)
    public func noteExtremes(nanoseconds: UInt64) {
        let value = Int(clamping: nanoseconds)
        totals.lower(Self.minimum, to: value)
        totals.raise(Self.maximum, to: value)
    }

    /// Samples recorded.
    public var count: Int {
        var total = 0
        for index in 0..<Self.bucketCount {
            total += buckets.load(index)
        }
        return total
    }

    /// A summary with percentiles and the non-empty buckets.
    public func summary() -> LatencySummary {
        // One pass over the buckets: the count is what this pass saw, so the percentiles and
        // the count agree while other threads record.
        var counts: [(Int, Int)] = []
        var total = 0
        for index in 0..<Self.bucketCount {
            let bucketCount = buckets.load(index)
            if bucketCount > 0 {
                counts.append((index, bucketCount))
                total += bucketCount
            }
        }
        guard total > 0 else { return LatencySummary() }
        let nonEmpty = counts.map { index, bucketCount in
            HistogramBucket(
                lowerNanos: Self.lowerBound(ofBucket: index),
                upperNanos: index + 1 < Self.bucketCount ? Self.lowerBound(ofBucket: index + 1) : UInt64.max,
                count: bucketCount)
        }
        let minimum = UInt64(max(totals.minimum(Self.minimum), 0))
        let maximum = UInt64(max(totals.maximum(Self.maximum), 0))
        func percentile(_ fraction: Double) -> UInt64 {
            let rank = max(1, Int((Double(total) * fraction).rounded(.up)))
            var seen = 0
            for (index, bucketCount) in counts {
                seen += bucketCount
                if seen >= rank {
                    // The bucket's midpoint, kept within the observed range.
                    let low = Self.lowerBound(ofBucket: index)
                    let high = index + 1 < Self.bucketCount ? Self.lowerBound(ofBucket: index + 1) : low
                    return min(max(low + (high - low) / 2, minimum), maximum)
                }
            }
            return maximum
        }
        return LatencySummary(
            count: total, minNanos: minimum, maxNanos: maximum,
            meanNanos: Double(totals.sum(Self.sum)) / Double(total),
            p50Nanos: percentile(0.5), p90Nanos: percentile(0.9), p99Nanos: percentile(0.99), buckets: nonEmpty)
    }
}
