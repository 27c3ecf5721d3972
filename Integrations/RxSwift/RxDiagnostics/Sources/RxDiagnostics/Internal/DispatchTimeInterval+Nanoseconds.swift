#if RxSwift  // the package trait RxSwift (Package.swift): without it, this module is empty
import Dispatch

extension DispatchTimeInterval {
    /// The interval in nanoseconds, or `nil` for `.never`.
    var nanoseconds: UInt64? {
        switch self {
        case .seconds(let value): return Self.clamp(Int64(value), 1_000_000_000)
        case .milliseconds(let value): return Self.clamp(Int64(value), 1_000_000)
        case .microseconds(let value): return Self.clamp(Int64(value), 1_000)
        case .nanoseconds(let value): return Self.clamp(Int64(value), 1)
        case .never: return nil
        @unknown default: return nil
        }
    }

    private static func clamp(_ value: Int64, _ scale: Int64) -> UInt64 {
        guard value > 0 else { return 0 }
        let (product, overflow) = value.multipliedReportingOverflow(by: scale)
        return overflow ? UInt64(Int64.max) : UInt64(product)
    }
}
#endif
