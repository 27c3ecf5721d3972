/// Options shared by every case.
public struct BenchmarkContext: Sendable {
    /// Fewer operations, for a smoke run.
    public var quick: Bool
    /// Repetitions of each measurement.
    public var repetitions: Int

    /// Creates the options of one run.
    public init(quick: Bool, repetitions: Int) {
        self.quick = quick
        self.repetitions = repetitions
    }
}
