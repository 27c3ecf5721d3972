import ReactiveDiagnostics
import _ReactiveDiagnosticsSupport

/// Maps the tokens ``DiagnosedNotificationCenter`` handed out to their resources, so that
/// removing an observer through the wrapper ends its resource at once, whatever the
/// platform's center does with the block afterwards.
final class ObserverRegistry: Sendable {
    static let shared = ObserverRegistry()

    private struct Entry: @unchecked Sendable {
        // Unchecked: only compared by identity, never used.
        weak var observer: AnyObject?
        var resource: TrackedResource
    }

    private let entries = LockedValue([UInt: Entry]())

    func insert(_ id: UInt, observer: AnyObject, resource: TrackedResource) {
        entries.withLock { $0[id] = Entry(observer: observer, resource: resource) }
    }

    /// Forgets `id` if it still belongs to `resource` (a dropped token's address may have
    /// been reused by a newer token).
    func remove(_ id: UInt, resource: ResourceToken) {
        guard id != 0 else { return }
        entries.withLock { entries in
            if entries[id]?.resource.token == resource {
                entries.removeValue(forKey: id)
            }
        }
    }

    /// The resource of a token handed out by the wrapper, forgotten as it is returned.
    func take(_ observer: AnyObject) -> TrackedResource? {
        let id = UInt(bitPattern: ObjectIdentifier(observer))
        return entries.withLock { entries in
            guard let entry = entries[id], entry.observer === observer else { return nil }
            entries.removeValue(forKey: id)
            return entry.resource
        }
    }
}
