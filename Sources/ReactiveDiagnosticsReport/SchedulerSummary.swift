import Foundation

/// Statistics of the diagnostic schedulers of one label: one row however many schedulers an
/// engine made with it (a view model per test, each with `queue.diagnosed("ui")`, is one row).
///
/// ```swift
/// for scheduler in report.schedulers where scheduler.pending > 0 || scheduler.threadViolations > 0 {
///     print(scheduler.label, "pending:", scheduler.pending, "off its thread:", scheduler.threadViolations)
/// }
/// ```
public struct SchedulerSummary: Codable, Sendable, Equatable {
    /// The scheduler's label.
    public var label: String
    /// Actions scheduled (one-shot and repeating).
    public var scheduled: Int
    /// Action runs (a repeating action counts once per run).
    public var executed: Int
    /// Actions cancelled before they ran, and repeating actions cancelled.
    public var cancelled: Int
    /// One-shot actions still waiting when the report was written.
    public var pending: Int
    /// Repeating actions still active when the report was written.
    public var activeRepeating: Int
    /// Actions that ran longer than the long-action threshold.
    public var longActions: Int
    /// Actions that ran on a thread the scheduler's expectation rules out.
    public var threadViolations: Int
    /// The thread expectation, for example `main queue`, when one was set.
    public var expectation: String?
    /// Enqueue-to-run latency: every action of a scheduler's first 256, then one in eight
    /// (and every delayed action).
    public var latency: LatencySummary
    /// How long actions ran: the same actions as ``latency``, with the shortest and longest
    /// run of all of them.
    public var duration: LatencySummary
    /// Where actions ran.
    public var threads: [ThreadCount]
    /// How many schedulers of this label were made (absent in reports written before rows were
    /// per label: one).
    public var instances: Int?

    /// Creates a scheduler summary.
    public init(
        label: String, scheduled: Int = 0, executed: Int = 0, cancelled: Int = 0, pending: Int = 0,
        activeRepeating: Int = 0, longActions: Int = 0, threadViolations: Int = 0,
        expectation: String? = nil, latency: LatencySummary = LatencySummary(),
        duration: LatencySummary = LatencySummary(), threads: [ThreadCount] = [], instances: Int? = nil
    ) {
        self.label = label
        self.scheduled = scheduled
        self.executed = executed
        self.cancelled = cancelled
        self.pending = pending
        self.activeRepeating = activeRepeating
        self.longActions = longActions
        self.threadViolations = threadViolations
        self.expectation = expectation
        self.latency = latency
        self.duration = duration
        self.threads = threads
        self.instances = instances
    }
}

/// A distribution of durations in nanoseconds, with a log-linear histogram.
///
/// ```swift
/// let latency = scheduler.latency
/// print("p50 \(latency.p50Nanos / 1_000) µs, p99 \(latency.p99Nanos / 1_000) µs over \(latency.count) actions")
/// ```
public struct LatencySummary: Codable, Sendable, Equatable {
    /// How many samples.
    public var count: Int
    /// Smallest sample.
    public var minNanos: UInt64
    /// Largest sample.
    public var maxNanos: UInt64
    /// Arithmetic mean.
    public var meanNanos: Double
    /// Median (from the histogram: within its bucket's resolution, about 6%).
    public var p50Nanos: UInt64
    /// 90th percentile.
    public var p90Nanos: UInt64
    /// 99th percentile.
    public var p99Nanos: UInt64
    /// Non-empty histogram buckets in increasing order.
    public var buckets: [HistogramBucket]

    /// Creates a latency summary.
    public init(
        count: Int = 0, minNanos: UInt64 = 0, maxNanos: UInt64 = 0, meanNanos: Double = 0,
        p50Nanos: UInt64 = 0, p90Nanos: UInt64 = 0, p99Nanos: UInt64 = 0,
        buckets: [HistogramBucket] = []
    ) {
        self.count = count
        self.minNanos = minNanos
        self.maxNanos = maxNanos
        self.meanNanos = meanNanos
        self.p50Nanos = p50Nanos
        self.p90Nanos = p90Nanos
        self.p99Nanos = p99Nanos
        self.buckets = buckets
    }
}

/// One histogram bucket: samples in `lowerNanos ..< upperNanos`.
///
/// ```swift
/// for bucket in scheduler.duration.buckets where bucket.count > 0 {
///     print("\(bucket.lowerNanos)..<\(bucket.upperNanos) ns: \(bucket.count)")
/// }
/// ```
public struct HistogramBucket: Codable, Sendable, Equatable {
    /// Inclusive lower bound.
    public var lowerNanos: UInt64
    /// Exclusive upper bound.
    public var upperNanos: UInt64
    /// Samples in the bucket.
    public var count: Int

    /// Creates a bucket.
    public init(lowerNanos: UInt64, upperNanos: UInt64, count: Int) {
        self.lowerNanos = lowerNanos
        self.upperNanos = upperNanos
        self.count = count
    }
}

/// How many actions ran on one thread.
///
/// ```swift
/// let offMain = scheduler.threads.filter { !$0.isMainQueue }.reduce(0) { $0 + $1.count }
/// ```
public struct ThreadCount: Codable, Sendable, Equatable {
    /// The thread's name, or `main queue` / `thread <id>`.
    public var thread: String
    /// Whether that was the main queue.
    public var isMainQueue: Bool
    /// How many actions ran there.
    public var count: Int

    /// Creates a thread count.
    public init(thread: String, isMainQueue: Bool, count: Int) {
        self.thread = thread
        self.isMainQueue = isMainQueue
        self.count = count
    }
}
