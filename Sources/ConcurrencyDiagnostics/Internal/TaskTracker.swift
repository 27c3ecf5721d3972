import CReactiveDiagnostics
@_spi(Integration) import ReactiveDiagnostics
import Synchronization

/// The life of one diagnosed task: a live ``ResourceKind/task`` from creation until its
/// operation returns, allocated where it was started.
final class TaskTracker: Sendable {
    let engine: DiagnosticsEngine
    private let token: ResourceToken

    init(engine: DiagnosticsEngine, label: DiagnosticLabel, owner: AnyObject?) {
        self.engine = engine
        let stack = engine.captureAllocationStack()
        token = engine.ledger.register(kind: .task, label: label, stack: stack, test: engine.currentTest())
        if let owner {
            let reference = WeakOwner(owner)
            engine.annotateLeaks(of: .task, label: label, allocatedAt: stack) { reference.describe() }
        }
    }

    /// The operation returned (or, for a group's child, threw).
    func end() {
        engine.ledger.unregister(token)
    }

    /// Ends the tracked resource when `task` completes, without touching the task itself: a
    /// detached watcher awaits its result, so the task starts, runs and is isolated exactly as
    /// a plain `Task` would be.
    ///
    /// The watcher runs at the task's `priority` (or, when it was inherited, the caller's): it
    /// is resumed with whoever awaits the task's value, and at a lower priority it ran after
    /// them, so a test that awaited the task often ended before the task's resource did and
    /// its end-of-test check looked again 250 µs later (one test in 20 in the long suite of
    /// Docs/Performance.md).
    func end<Success: Sendable, Failure: Error>(when task: Task<Success, Failure>, priority: TaskPriority?) {
        rdiag_task_hook_suppress(1)
        defer { rdiag_task_hook_suppress(-1) }
        Task.detached(priority: priority ?? Task.currentPriority) { [self] in
            _ = await task.result
            end()
        }
    }
}

/// The owner a diagnosed task was started for, held weakly, to tell at the leak whether the
/// task outlived it.
final class WeakOwner: Sendable {
    // Unchecked: a weak reference is read atomically by the runtime.
    private nonisolated(unsafe) weak var object: AnyObject?
    private let typeName: String

    init(_ object: AnyObject) {
        self.object = object
        typeName = String(describing: type(of: object))
    }

    func describe() -> String {
        if object == nil {
            return
                "Its owner, a \(typeName), is gone: the task outlived it (a loop that no longer has anyone to update, never cancelled)"
        }
        return
            "Its owner, a \(typeName), is still alive: the task may be what keeps it alive (a strong self in a loop that never ends?)"
    }
}
