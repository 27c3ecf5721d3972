/// Options shared by every case.
struct BenchmarkContext {
    /// Fewer operations, for a smoke run.
    var quick: Bool
    /// Repetitions of each measurement.
    var repetitions: Int
}
