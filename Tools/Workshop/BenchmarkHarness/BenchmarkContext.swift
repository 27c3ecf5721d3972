/// Options shared by every case.
public struct BenchmarkContext: Sendable {
    /// Fewer operations, for a smoke run.
    public var quick: Bool
    /// Repetitions of each measurement.
    public var repetitions: Int
    /// Repetitions a ratio with a target may take at most, while its median is not yet known
    /// to within ``settledTolerance`` (see ``Measure/rounds(minimum:maximum:tolerance:_:)``).
    public var maximumRepetitions: Int
    /// How closely the median of a ratio with a target must be known (relative, either side)
    /// before it stops being measured again.
    public var settledTolerance: Double

    /// Creates the options of one run.
    public init(quick: Bool, repetitions: Int, maximumRepetitions: Int? = nil, settledTolerance: Double = 0.03) {
        self.quick = quick
        self.repetitions = repetitions
        self.maximumRepetitions = max(maximumRepetitions ?? repetitions, repetitions)
        self.settledTolerance = settledTolerance
    }
}
