#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Which diagnostic executor the calling thread is running a job of: a thread-specific value
/// set around each job (one `pthread_setspecific` before and after).
enum RunningExecutor {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "ReactiveDiagnostics: pthread_key_create failed (\(status))")
        return key
    }()

    /// The executor of the job running on this thread, as an opaque pointer, or `nil`.
    static var current: UnsafeMutableRawPointer? {
        pthread_getspecific(key)
    }

    /// Marks `executor` as running a job on this thread; returns what to restore.
    static func enter(_ executor: AnyObject) -> UnsafeMutableRawPointer? {
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, Unmanaged.passUnretained(executor).toOpaque())
        return previous
    }

    /// Restores the marker saved by ``enter(_:)``.
    static func leave(_ previous: UnsafeMutableRawPointer?) {
        pthread_setspecific(key, previous)
    }

    /// Whether the calling thread runs a job of `executor`.
    static func isRunning(_ executor: AnyObject) -> Bool {
        current == Unmanaged.passUnretained(executor).toOpaque()
    }
}
