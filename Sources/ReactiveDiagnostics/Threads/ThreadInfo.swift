import CReactiveDiagnostics
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A thread as recorded in findings: kernel id, name, the dispatch queue it was running and
/// whether that was the main queue.
///
/// ```swift
/// DispatchQueue(label: "com.example.feed").async {
///     print(ThreadInfo.current)   // thread 8812 'com.apple.root.default-qos.overcommit' on queue 'com.example.feed' (background)
/// }
/// ```
public struct ThreadInfo: Sendable, Hashable, CustomStringConvertible {
    /// The kernel's thread id (what gdb and `ps -L` show).
    public var id: UInt64
    /// The thread's name in full, when it has one (see `ThreadNames` for names the kernel cut).
    public var name: String?
    /// The label of the dispatch queue the code ran on, when it was one the app made (not the
    /// main queue, not a root queue).
    public var queue: String?
    /// Whether the code ran on the main queue.
    public var isMainQueue: Bool

    /// Creates a thread record.
    public init(id: UInt64, name: String?, queue: String? = nil, isMainQueue: Bool) {
        self.id = id
        self.name = name
        self.queue = queue
        self.isMainQueue = isMainQueue
    }

    /// The calling thread. Costs system calls: use on the slow path only.
    public static var current: ThreadInfo {
        let kernel = read(rdiag_thread_name)
        let label = read(rdiag_dispatch_queue_label)
        var name = kernel
        if let cut = kernel, cut.utf8.count >= ThreadNames.kernelLimit {
            name = ThreadNames.fullName(kernel: cut, queueLabel: label, foundationName: Thread.current.name)
        }
        let queue = ThreadNames.queue(label: label, threadName: name)
        // A fragment that fits several root queues is no name, but better than nothing.
        return ThreadInfo(
            id: rdiag_thread_id(), name: name ?? (queue == nil ? kernel : nil), queue: queue,
            isMainQueue: MainQueue.isCurrent)
    }

    private static func read(_ function: (UnsafeMutablePointer<CChar>, Int) -> Int32) -> String? {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { buffer in
            guard function(buffer.baseAddress!, buffer.count) == 0 else { return nil }
            let text = String(cString: buffer.baseAddress!)
            return text.isEmpty ? nil : text
        }
    }

    /// The thread as failure messages name it: its id, its name and queue when known, and whether it
    /// was the main queue, e.g. `thread 4242 'worker' on queue 'sync' (background)`.
    public var description: String {
        let place = isMainQueue ? "main queue" : "background"
        let named = name.map { "thread \(id) '\($0)'" } ?? "thread \(id)"
        let queued = queue.map { " on queue '\($0)'" } ?? ""
        return "\(named)\(queued) (\(place))"
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
