extension Duration {
    /// The duration in whole nanoseconds: 0 for a negative one, `Int64.max` for one too long
    /// to count that way.
    ///
    /// ```swift
    /// Duration.milliseconds(25).clampedNanoseconds   // 25_000_000
    /// ```
    var clampedNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        // Under a second below zero the seconds are 0 and the attoseconds negative.
        return overflow ? Int64.max : max(0, product &+ attoseconds / 1_000_000_000)
    }
}
