import Dispatch

/// Monotonic nanoseconds.
@inline(__always)
public func now() -> UInt64 {
    DispatchTime.now().uptimeNanoseconds
}

/// Keeps the optimizer from deleting work whose result is otherwise unused.
@inline(never)
public func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
