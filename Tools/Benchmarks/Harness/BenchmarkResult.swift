/// One measured quantity of one case, with its target when it has one.
struct BenchmarkResult: Codable, Sendable {
    /// Case name, e.g. `pipeline.diagnosed`.
    var name: String
    /// What is measured, e.g. `ns/event`, `ratio`, `bytes/resource`.
    var unit: String
    /// The measurements.
    var statistics: Statistics
    /// The target, e.g. `<= 1.10`.
    var target: Target?
    /// Context worth keeping (the baseline's absolute cost, counts).
    var notes: [String: String] = [:]

    struct Target: Codable, Sendable {
        var comparison: String
        var limit: Double

        static func atMost(_ limit: Double) -> Target { Target(comparison: "<=", limit: limit) }
        static func atLeast(_ limit: Double) -> Target { Target(comparison: ">=", limit: limit) }

        func isMet(by value: Double) -> Bool {
            comparison == "<=" ? value <= limit : value >= limit
        }
    }

    /// Whether the median meets the target (`nil` when there is none).
    var met: Bool? {
        target.map { $0.isMet(by: statistics.median) }
    }
}

/// Everything one benchmark run measured.
struct BenchmarkRun: Codable, Sendable {
    var machine: String
    var toolchain: String
    var date: String
    var repetitions: Int
    var results: [BenchmarkResult]
}
