import ReactiveDiagnosticsReport

/// Merges scheduler statistics of the same scheduler from several processes.
///
/// Counts are summed. Histograms are merged bucket by bucket; the percentiles are then
/// recomputed from the merged buckets the way the engine computes them (the midpoint of the
/// bucket holding the rank, kept within the observed range). `min` and `max` are the
/// extremes of the inputs and `mean` their count-weighted mean: exact, where recomputing
/// them from buckets would only approximate them.
///
/// ```swift
/// let merged = LatencyMerge.merge([shard1.latency, shard2.latency])
/// assert(merged.count == shard1.latency.count + shard2.latency.count)
/// ```
enum LatencyMerge {
    /// Merges summaries of one scheduler (same label); `summaries` must not be empty.
    static func merge(_ summaries: [SchedulerSummary]) -> SchedulerSummary {
        precondition(!summaries.isEmpty, "LatencyMerge.merge needs at least one scheduler")
        var merged = summaries[0]
        for other in summaries.dropFirst() {
            merged.scheduled += other.scheduled
            merged.executed += other.executed
            merged.cancelled += other.cancelled
            merged.pending += other.pending
            merged.activeRepeating += other.activeRepeating
            merged.longActions += other.longActions
            merged.threadViolations += other.threadViolations
            merged.expectation = merged.expectation ?? other.expectation
        }
        merged.latency = merge(summaries.map(\.latency))
        merged.duration = merge(summaries.map(\.duration))
        merged.threads = mergeThreads(summaries.flatMap(\.threads))
        return merged
    }

    /// Merges distributions.
    static func merge(_ summaries: [LatencySummary]) -> LatencySummary {
        let samples = summaries.filter { $0.count > 0 }
        guard samples.count > 1 else { return samples.first ?? LatencySummary() }
        let count = samples.reduce(0) { $0 + $1.count }
        let minimum = samples.map(\.minNanos).min() ?? 0
        let maximum = samples.map(\.maxNanos).max() ?? 0
        let mean = samples.reduce(0.0) { $0 + $1.meanNanos * Double($1.count) } / Double(count)

        struct BucketKey: Hashable {
            let lower: UInt64
            let upper: UInt64
        }
        var counts: [BucketKey: Int] = [:]
        for bucket in samples.flatMap(\.buckets) {
            counts[BucketKey(lower: bucket.lowerNanos, upper: bucket.upperNanos), default: 0] += bucket.count
        }
        let buckets = counts.map {
            HistogramBucket(lowerNanos: $0.key.lower, upperNanos: $0.key.upper, count: $0.value)
        }
        .sorted { ($0.lowerNanos, $0.upperNanos) < ($1.lowerNanos, $1.upperNanos) }
        func percentile(_ fraction: Double, fallback: KeyPath<LatencySummary, UInt64>) -> UInt64 {
            let total = buckets.reduce(0) { $0 + $1.count }
            guard total > 0 else { return samples.map { $0[keyPath: fallback] }.max() ?? maximum }
            let rank = max(1, Int((Double(total) * fraction).rounded(.up)))
            var seen = 0
            for bucket in buckets {
                seen += bucket.count
                if seen >= rank {
                    let width = bucket.upperNanos >= bucket.lowerNanos ? bucket.upperNanos - bucket.lowerNanos : 0
                    return min(max(bucket.lowerNanos + width / 2, minimum), maximum)
                }
            }
            return maximum
        }
        return LatencySummary(
            count: count, minNanos: minimum, maxNanos: maximum, meanNanos: mean,
            p50Nanos: percentile(0.5, fallback: \.p50Nanos), p90Nanos: percentile(0.9, fallback: \.p90Nanos),
            p99Nanos: percentile(0.99, fallback: \.p99Nanos), buckets: buckets)
    }

    /// Sums thread counts by thread, in the order threads first appear.
    static func mergeThreads(_ threads: [ThreadCount]) -> [ThreadCount] {
        struct Key: Hashable {
            let thread: String
            let isMainQueue: Bool
        }
        var positions: [Key: Int] = [:]
        var merged: [ThreadCount] = []
        for thread in threads {
            let key = Key(thread: thread.thread, isMainQueue: thread.isMainQueue)
            if let position = positions[key] {
                merged[position].count += thread.count
            } else {
                positions[key] = merged.count
                merged.append(thread)
            }
        }
        return merged
    }
}
