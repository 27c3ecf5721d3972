import _ReactiveDiagnosticsSupport

/// The engines the process-wide hooks of the capture layer tell (unstructured tasks, stream
/// and continuation misuse), held weakly: an engine that is gone is dropped at the next
/// registration. An engine takes an event when the current test is one of its open tests.
enum HookedEngines {
    /// What an engine asked to be told of.
    struct Hooks: OptionSet, Sendable {
        let rawValue: Int
        /// Unstructured tasks started (`TaskCreationHook`).
        static let tasks = Hooks(rawValue: 1)
        /// AsyncStream and CheckedContinuation misuse (`StreamMisuseHook`).
        static let streams = Hooks(rawValue: 2)
    }

    private struct Entry: @unchecked Sendable {
        // Unchecked: a weak reference is loaded atomically by the runtime.
        weak var engine: DiagnosticsEngine?
        var hooks: Hooks
    }

    private static let entries = LockedValue([Entry]())

    /// Tells `engine` of the events of `hooks` from now on.
    static func register(_ engine: DiagnosticsEngine, for hooks: Hooks) {
        entries.withLock { entries in
            entries.removeAll { $0.engine == nil }
            if let index = entries.firstIndex(where: { $0.engine === engine }) {
                entries[index].hooks.formUnion(hooks)
            } else {
                entries.append(Entry(engine: engine, hooks: hooks))
            }
        }
    }

    /// Whether `engine` is told of the events of `hooks`.
    static func isRegistered(_ engine: DiagnosticsEngine, for hooks: Hooks) -> Bool {
        entries.withLock { entries in
            entries.contains { $0.engine === engine && $0.hooks.isSuperset(of: hooks) }
        }
    }

    /// Tells the live engines of the events of `hooks`, in the order they registered, until
    /// `take` returns `true` (the engine took the event). Called once per event a hook sees, so
    /// it allocates nothing: the list is read under the lock (a reference to its storage), the
    /// engines are told outside it.
    static func first(for hooks: Hooks, where take: (DiagnosticsEngine) -> Bool) {
        let snapshot = entries.withLock { $0 }
        for entry in snapshot where entry.hooks.isSuperset(of: hooks) {
            if let engine = entry.engine, take(engine) {
                return
            }
        }
    }
}
