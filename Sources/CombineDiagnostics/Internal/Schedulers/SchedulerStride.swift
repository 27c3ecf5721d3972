import Dispatch
import Foundation
import OpenCombineShim

/// Converts the strides of the schedulers whose time is known into nanoseconds, so
/// latency can be measured from when a delayed action was due.
enum SchedulerStride {
    /// `stride` in nanoseconds, or `nil` for a scheduler whose stride has no known unit.
    static func nanoseconds<Stride>(_ stride: Stride) -> Int64? {
        (stride as? any NanosecondStride)?.diagnosticNanoseconds
    }
}

/// A scheduler stride with a known unit.
protocol NanosecondStride {
    var diagnosticNanoseconds: Int64 { get }
}

extension DispatchQueue.SchedulerTimeType.Stride: NanosecondStride {
    var diagnosticNanoseconds: Int64 { Int64(magnitude) }
}

extension RunLoop.SchedulerTimeType.Stride: NanosecondStride {
    var diagnosticNanoseconds: Int64 { Int64((magnitude * 1e9).rounded()) }
}

extension OperationQueue.SchedulerTimeType.Stride: NanosecondStride {
    var diagnosticNanoseconds: Int64 { Int64((magnitude * 1e9).rounded()) }
}

extension ImmediateScheduler.SchedulerTimeType.Stride: NanosecondStride {
    // ImmediateScheduler ignores time: everything is due now.
    var diagnosticNanoseconds: Int64 { 0 }
}
