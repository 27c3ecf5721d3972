import CReactiveDiagnostics
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A thread as recorded in findings: kernel id, name and whether it was the main queue.
public struct ThreadInfo: Sendable, Hashable, CustomStringConvertible {
    /// The kernel's thread id (what gdb and `ps -L` show).
    public var id: UInt64
    /// The thread's name, when it has one.
    public var name: String?
    /// Whether the code ran on the main queue.
    public var isMainQueue: Bool

    /// Creates a thread record.
    public init(id: UInt64, name: String?, isMainQueue: Bool) {
        self.id = id
        self.name = name
        self.isMainQueue = isMainQueue
    }

    /// The calling thread. Costs a system call: use on the slow path only.
    public static var current: ThreadInfo {
        var name: String?
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
            if rdiag_thread_name(buffer.baseAddress!, buffer.count) == 0 {
                let text = String(cString: buffer.baseAddress!)
                name = text.isEmpty ? nil : text
            }
        }
        return ThreadInfo(id: rdiag_thread_id(), name: name, isMainQueue: MainQueue.isCurrent)
    }

    public var description: String {
        let place = isMainQueue ? "main queue" : "background"
        if let name {
            return "thread \(id) '\(name)' (\(place))"
        }
        return "thread \(id) (\(place))"
    }
}

/// A cheap identity of the calling thread for the hot path (not stable across runs).
@inline(__always)
func currentThreadToken() -> UInt {
    #if canImport(Darwin)
    return UInt(bitPattern: pthread_self())
    #else
    return UInt(pthread_self())
    #endif
}
