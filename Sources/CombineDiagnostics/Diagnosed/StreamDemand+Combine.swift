public import OpenCombineShim
import ReactiveDiagnostics

extension StreamDemand {
    /// The engine's view of a Combine demand.
    ///
    /// ```swift
    /// assert(StreamDemand(Subscribers.Demand.max(3)) == .max(3))
    /// assert(StreamDemand(Subscribers.Demand.unlimited) == .unlimited)
    /// ```
    @inlinable
    package init(_ demand: Subscribers.Demand) {
        if let count = demand.max {
            self = .max(count)
        } else {
            self = .unlimited
        }
    }
}
