/// One measured quantity of one case, with its target when it has one.
public struct BenchmarkResult: Codable, Sendable {
    /// Case name, e.g. `pipeline.diagnosed`.
    public var name: String
    /// What is measured, e.g. `ns/event`, `ratio`, `bytes/resource`.
    public var unit: String
    /// The measurements.
    public var statistics: Statistics
    /// The target, e.g. `<= 1.10`.
    public var target: Target?
    /// Context worth keeping (the baseline's absolute cost, counts).
    public var notes: [String: String] = [:]

    /// Creates a result.
    public init(
        name: String, unit: String, statistics: Statistics, target: Target? = nil, notes: [String: String] = [:]
    ) {
        self.name = name
        self.unit = unit
        self.statistics = statistics
        self.target = target
        self.notes = notes
    }

    /// A bound the median must keep.
    public struct Target: Codable, Sendable {
        /// `<=` or `>=`.
        public var comparison: String
        /// The bound.
        public var limit: Double

        /// The median must be at most `limit`.
        public static func atMost(_ limit: Double) -> Target { Target(comparison: "<=", limit: limit) }
        /// The median must be at least `limit`.
        public static func atLeast(_ limit: Double) -> Target { Target(comparison: ">=", limit: limit) }

        /// Whether `value` keeps the bound.
        public func isMet(by value: Double) -> Bool {
            comparison == "<=" ? value <= limit : value >= limit
        }
    }

    /// Whether the median meets the target (`nil` when there is none).
    public var met: Bool? {
        target.map { $0.isMet(by: statistics.median) }
    }
}

/// Everything one benchmark run measured.
public struct BenchmarkRun: Codable, Sendable {
    /// CPU, cores, memory and system.
    public var machine: String
    /// The Swift toolchain.
    public var toolchain: String
    /// When it ran.
    public var date: String
    /// Repetitions of each measurement.
    public var repetitions: Int
    /// Every result.
    public var results: [BenchmarkResult]

    /// Creates a run record.
    public init(machine: String, toolchain: String, date: String, repetitions: Int, results: [BenchmarkResult]) {
        self.machine = machine
        self.toolchain = toolchain
        self.date = date
        self.repetitions = repetitions
        self.results = results
    }
}
