/// Demand as the grammar checker sees it: a number of values, or unlimited.
///
/// Adapters translate their framework's demand (Combine's `Subscribers.Demand`) into this;
/// frameworks without back-pressure (RxSwift) use ``StreamMonitor/Options/tracksDemand`` `false`.
///
/// ```swift
/// monitor.requested(.max(1))        // the subscriber asks for one value
/// monitor.requested(.unlimited)     // then for all of them
/// ```
@usableFromInline package enum StreamDemand: Sendable, Hashable, CustomStringConvertible {
    /// No limit.
    case unlimited
    /// This many more values (may be zero or, for a broken subscriber, negative).
    case max(Int)

    /// No additional values.
    @usableFromInline package static let none = StreamDemand.max(0)

    /// `unlimited` or `max(<count>)`, as Combine prints a demand.
    @usableFromInline package var description: String {
        switch self {
        case .unlimited: return "unlimited"
        case .max(let count): return "max(\(count))"
        }
    }

    /// The demand as the monitor stores it: `Int.max` for unlimited.
    @inline(__always)
    var stored: Int {
        switch self {
        case .unlimited: return Int.max
        case .max(let count): return count
        }
    }
}
