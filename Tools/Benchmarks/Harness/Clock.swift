import Dispatch

/// Monotonic nanoseconds.
@inline(__always)
func now() -> UInt64 {
    DispatchTime.now().uptimeNanoseconds
}

/// Keeps the optimizer from deleting work whose result is otherwise unused.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
