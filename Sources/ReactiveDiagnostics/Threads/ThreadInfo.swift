import CReactiveDiagnostics
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A thread as recorded in findings: kernel id, name and whether it was the main queue.
///
/// ```swift
/// DispatchQueue.global().async {
///     print(ThreadInfo.current)   // thread 8812 (background)
/// }
/// ```
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

    /// `thread <id> '<name>' (main queue)` or `(background)`, as findings print the thread an
    /// event came from.
    public var description: String {
        let place = isMainQueue ? "main queue" : "background"
        if let name {
            return "thread \(id) '\(name)' (\(place))"
        }
        return "thread \(id) (\(place))"
    }
}

/// The kernel id of the calling thread, cached per thread: a thread-local read, cheap
/// enough for the hot path, and it names the thread in findings (never 0).
@inline(__always)
func currentThreadToken() -> UInt64 {
    rdiag_thread_id_cached()
}

extension ThreadInfo {
    /// Another thread of this process, known only by its kernel id (from the owner word of a
    /// delivery): its name is read from `/proc` where the system offers it; whether it was on
    /// the main queue cannot be known from outside, so it says no.
    static func other(id: UInt64) -> ThreadInfo {
        var name: String?
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
            if rdiag_thread_name_of(id, buffer.baseAddress!, buffer.count) == 0 {
                let text = String(cString: buffer.baseAddress!)
                name = text.isEmpty ? nil : text
            }
        }
        return ThreadInfo(id: id, name: name, isMainQueue: false)
    }
}
