import CReactiveDiagnostics
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The last few labels the calling thread interned, so that building the same `.diagnosed("feed")`
/// stage again (a pipeline made per request) costs a string comparison, not a hash, a lock and
/// a table lookup. A string literal compares equal to itself in a few instructions.
///
/// Reached through a thread-local pointer (``current()``): no exclusivity checks, no reference
/// counting, no bounds checks.
struct RecentLabels {
    static let size = 4

    private let names: UnsafeMutablePointer<String>
    private let ids: UnsafeMutablePointer<UInt32>
    private var next = 0

    private init() {
        names = .allocate(capacity: Self.size)
        names.initialize(repeating: "", count: Self.size)
        ids = .allocate(capacity: Self.size)
        ids.initialize(repeating: 0, count: Self.size)
    }

    /// Frees the thread's labels when it exits (reads go through `rdiag_recent_labels_get`).
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { pointer in
            #if canImport(Darwin)
            let labels = pointer.assumingMemoryBound(to: RecentLabels.self)
            #else
            guard let labels = pointer?.assumingMemoryBound(to: RecentLabels.self) else { return }
            #endif
            rdiag_recent_labels_set(nil)
            labels.pointee.names.deinitialize(count: RecentLabels.size)
            labels.pointee.names.deallocate()
            labels.pointee.ids.deallocate()
            labels.deinitialize(count: 1)
            labels.deallocate()
        }
        precondition(status == 0, "ReactiveDiagnostics: pthread_key_create failed (\(status))")
        return key
    }()

    /// The calling thread's labels, made on first use and freed when the thread exits.
    @inline(__always)
    static func current() -> UnsafeMutablePointer<RecentLabels> {
        if let raw = rdiag_recent_labels_get() {
            return raw.assumingMemoryBound(to: RecentLabels.self)
        }
        let labels = UnsafeMutablePointer<RecentLabels>.allocate(capacity: 1)
        labels.initialize(to: RecentLabels())
        pthread_setspecific(key, labels)
        rdiag_recent_labels_set(labels)
        return labels
    }

    /// The id of `name` if this thread interned it recently.
    @inline(__always)
    func id(for name: String) -> UInt32? {
        var index = 0
        while index < Self.size {
            if ids[index] != 0 && names[index] == name {
                return ids[index]
            }
            index += 1
        }
        return nil
    }

    /// Remembers `name`'s id, replacing the oldest entry.
    mutating func remember(_ name: String, id: UInt32) {
        names[next] = name
        ids[next] = id
        next = (next + 1) % Self.size
    }
}
