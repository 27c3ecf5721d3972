import CReactiveDiagnostics
import Synchronization
import _ReactiveDiagnosticsSupport

/// The unstructured tasks an engine follows (``DiagnosticsEngine/trackingUnstructuredTasks``):
/// each one retained from its start until it completes or its test's checkpoint, so that its
/// state can be read (a retained task's header is always readable) and its leak told with where
/// it was started and where it waits.
///
/// Bounded: a completed task is released at the next sweep (every settle poll, and whenever
/// the table has doubled since the last sweep), and a test's tasks are forgotten at its
/// checkpoint, reported or not.
final class TrackedTasks: Sendable {
    /// One task.
    struct Entry: Sendable {
        /// The task (an `AsyncTask *`), retained by this table.
        var task: UInt
        var token: ResourceToken
        var test: TestIdentity
        var label: DiagnosticLabel
        var stack: StackID
        var detached: Bool
        /// The task's closure context (an object the task holds while it runs), 0 for none.
        var context: UInt
        /// Started on the main thread (where a test runner may block until it ends).
        var startedOnMainThread = false
    }

    private let entries = LockedValue([UInt: Entry]())
    private let tracked = Atomic<Int>(0)
    /// How many tasks started on the main thread were ever added.
    private let mainThreadStarts = Atomic<Int>(0)
    /// Tracked tasks left by the last sweep: the base the next sweep waits to double.
    private let afterLastSweep = Atomic<Int>(0)
    /// The fewest tasks worth a sweep outside the settle loop.
    static let sweepFloor = 256

    var count: Int {
        tracked.load(ordering: .relaxed)
    }

    /// Follows `entry.task`, which the caller has retained for the table.
    func add(_ entry: Entry) {
        let count = entries.withLock { entries in
            if entry.startedOnMainThread {
                mainThreadStarts.add(1, ordering: .relaxed)
            }
            entries[entry.task] = entry
            return entries.count
        }
        tracked.store(count, ordering: .relaxed)
    }

    /// Whether a sweep is due (the table doubled since the last one); only one caller is told.
    func claimSweep() -> Bool {
        let count = tracked.load(ordering: .relaxed)
        let last = afterLastSweep.load(ordering: .relaxed)
        guard count >= Self.sweepFloor, count >= 2 * last else { return false }
        return afterLastSweep.compareExchange(expected: last, desired: count, ordering: .relaxed).exchanged
    }

    /// Removes the completed tasks (and any the runtime no longer recognizes) and returns them:
    /// the caller releases them and ends their resources, outside every lock (releasing a task
    /// can release its result, and run a deinit).
    func takeCompleted() -> [Entry] {
        let (done, count) = entries.withLock { entries -> ([Entry], Int) in
            var done: [Entry] = []
            for (task, entry) in entries {
                var state = rdiag_task_state()
                if rdiag_task_read_state(UnsafeMutableRawPointer(bitPattern: task)!, &state) != 0
                    || state.status_flags & UInt32(RDIAG_TASK_COMPLETE) != 0
                {
                    done.append(entry)
                }
            }
            for entry in done {
                entries.removeValue(forKey: entry.task)
            }
            return (done, entries.count)
        }
        tracked.store(count, ordering: .relaxed)
        afterLastSweep.store(count, ordering: .relaxed)
        return done
    }

    /// A number that grows by one whenever a task of `test` started on the main thread ends:
    /// every such task ever added, less those of `test` still running.
    func mainThreadTaskEnds(of test: TestIdentity) -> Int {
        entries.withLock { entries in
            var running = 0
            for (task, entry) in entries where entry.startedOnMainThread && entry.test == test {
                if TaskState(task: task)?.isComplete == false { running += 1 }
            }
            // Read under the lock `add` counts under: a start is never seen without its entry.
            return mainThreadStarts.load(ordering: .relaxed) - running
        }
    }

    /// Whether a task of `test` is running or enqueued to run.
    func anyActive(of test: TestIdentity) -> Bool {
        entries.withLock { entries in
            entries.contains { task, entry in
                entry.test == test
                    && TaskState(task: task).map { !$0.isComplete && ($0.isRunning || $0.isEnqueued) } == true
            }
        }
    }

    /// The tasks of `test` still followed.
    func entries(of test: TestIdentity) -> [Entry] {
        entries.withLock { $0.values.filter { $0.test == test } }
    }

    /// Removes the tasks of `test` and returns them (to release, outside every lock).
    func take(test: TestIdentity) -> [Entry] {
        let (taken, count) = entries.withLock { entries -> ([Entry], Int) in
            let taken = entries.values.filter { $0.test == test }
            for entry in taken {
                entries.removeValue(forKey: entry.task)
            }
            return (taken, entries.count)
        }
        tracked.store(count, ordering: .relaxed)
        return taken
    }

    /// Removes one task and returns it, if it is followed.
    func take(task: UInt) -> Entry? {
        let (taken, count) = entries.withLock { entries in (entries.removeValue(forKey: task), entries.count) }
        tracked.store(count, ordering: .relaxed)
        return taken
    }
}

/// The state of a retained task, read from its header.
struct TaskState {
    var flags: UInt32

    init?(task: UInt) {
        var state = rdiag_task_state()
        guard let pointer = UnsafeMutableRawPointer(bitPattern: task), rdiag_task_read_state(pointer, &state) == 0
        else { return nil }
        flags = state.status_flags
    }

    var isComplete: Bool { flags & UInt32(RDIAG_TASK_COMPLETE) != 0 }
    var isRunning: Bool { flags & UInt32(RDIAG_TASK_RUNNING) != 0 }
    var isCancelled: Bool { flags & UInt32(RDIAG_TASK_CANCELLED) != 0 }
    var isEnqueued: Bool { flags & UInt32(RDIAG_TASK_ENQUEUED) != 0 }
}
