#if canImport(Glibc)
public import Glibc
#elseif canImport(Musl)
public import Musl
#elseif canImport(Darwin)
public import Darwin
#endif

/// A value guarded by a `pthread_mutex_t`, for this package's modules.
///
/// The standard library's `Synchronization.Mutex` would do, but on Linux its contended path is
/// a priority-inheritance futex whose hand-over Thread Sanitizer cannot see, so every
/// contended section looks like a data race. A pthread mutex is understood by every sanitizer
/// and costs the same uncontended (the same choice as swift-nio's `NIOLock`).
///
/// ```swift
/// let counts = LockedValue([String: Int]())
/// counts.withLock { $0["feed", default: 0] += 1 }
/// ```
@usableFromInline
package final class LockedValue<Value>: @unchecked Sendable {
    // Unchecked: `value` is only touched inside `withLock`, which holds `mutex`.
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    // Unchecked exclusivity: only `withLock` touches it, under the mutex, so a dynamic check per
    // access would only cost (two runtime calls on every lock).
    @usableFromInline @exclusivity(unchecked) var value: Value

    /// Guards `value`.
    @usableFromInline
    package init(_ value: sending Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let result = pthread_mutex_init(mutex, nil)
        precondition(result == 0, "pthread_mutex_init failed with \(result)")
        self.value = value
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value. Never call user code inside.
    @inlinable
    package func withLock<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
