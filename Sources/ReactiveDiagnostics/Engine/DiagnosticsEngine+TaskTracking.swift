import CReactiveDiagnostics
import Dispatch
import Foundation
import ReactiveDiagnosticsReport
import ReactiveDiagnosticsRetainPaths
import ReactiveDiagnosticsSymbolication
import Synchronization
import _ReactiveDiagnosticsSupport

extension DiagnosticsEngine {
    /// Whether this process sees every unstructured task the code under test starts
    /// (`Task { }`, `Task.detached { }`), with where it was started, with the app's code left
    /// as it is (Docs/Concurrency.md): on Linux, where the test executable's own
    /// `swift_task_create` is this library's, and the runtime's task layout was checked.
    ///
    /// ```swift
    /// if DiagnosticsEngine.seesUnstructuredTasks {
    ///     print("a Task { } still running at a test's end fails it at its Task { line")
    /// }
    /// ```
    public static var seesUnstructuredTasks: Bool {
        TaskCreationHook.isInstalled
    }

    /// How many unstructured tasks this engine follows now (started during a test whose
    /// checkpoint has not come yet).
    package var followedTaskCount: Int {
        trackedTasks.count
    }

    /// Starts following the unstructured tasks started during this engine's tests (called
    /// from the initializer when ``Configuration/tracksUnstructuredTasks`` is on).
    func followUnstructuredTasks() {
        TaskCreationHook.register(self)
    }

    /// Runs `body`, in which the library starts tasks of its own (a diagnosed task, a watcher,
    /// an effect's task): they are the library's, followed by their own adapters, never as
    /// unstructured tasks of the test.
    ///
    /// ```swift
    /// let task = DiagnosticsEngine.startingOwnTasks { Task(priority: priority, operation: operation) }
    /// ```
    @_spi(Integration) public static func startingOwnTasks<Result>(_ body: () throws -> Result) rethrows -> Result {
        rdiag_task_hook_suppress(1)
        defer { rdiag_task_hook_suppress(-1) }
        return try body()
    }

    /// Called on the starting thread for each unstructured task: follows it when it was started
    /// during one of this engine's tests. Returns whether it did.
    func followTask(_ task: UnsafeMutableRawPointer, detached: Bool, context: UnsafeMutableRawPointer?) -> Bool {
        guard hotEnabled.load(ordering: .relaxed) else { return false }
        let test = currentTest()
        guard test.isKnown, openTests.withLock({ $0[test.rawValue] != nil }) else { return false }
        let stack = captureAllocationStack()
        let label = DiagnosticLabel(detached ? "Task.detached { … }" : "Task { … }")
        let token = ledger.register(kind: .task, label: label, stack: stack, test: test)
        _ = Unmanaged<AnyObject>.fromOpaque(task).retain()
        trackedTasks.add(
            TrackedTasks.Entry(
                task: UInt(bitPattern: task), token: token, test: test, label: label, stack: stack,
                detached: detached, context: context.map { UInt(bitPattern: $0) } ?? 0,
                startedOnMainThread: rdiag_is_process_main_thread() != 0))
        if trackedTasks.claimSweep() {
            sweepCompletedTasks()
        }
        return true
    }

    /// A number that grows by one whenever an unstructured task the test started from the main
    /// thread ends (it does not change when one starts); compare two readings. Constant when
    /// tasks are not followed (see ``seesUnstructuredTasks``).
    ///
    /// A test runner that blocks the main thread until such a task ends uses it to learn that
    /// the task has ended: swift-corelibs-xctest waits for an async test's task that way.
    ///
    /// ```swift
    /// let before = engine.mainThreadTaskEnds(of: checkpoint)
    /// // … later, on another thread …
    /// if engine.mainThreadTaskEnds(of: checkpoint) > before { DispatchQueue.main.async {} }
    /// ```
    @_spi(Integration) public func mainThreadTaskEnds(of checkpoint: TestCheckpoint) -> Int {
        trackedTasks.mainThreadTaskEnds(of: checkpoint.test)
    }

    /// Ends the resources of the followed tasks that completed, and releases them.
    func sweepCompletedTasks() {
        guard trackedTasks.count > 0 else { return }
        for entry in trackedTasks.takeCompleted() {
            ledger.unregister(entry.token)
            Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(bitPattern: entry.task)!).release()
        }
    }

    /// At the checkpoint, before the leaks are recorded: for each task of the test still
    /// running, where it is suspended (its chain of awaiting functions) and what that means; a
    /// task whose wait another finding of the test already explains (an iteration, a
    /// continuation or an effect waiting in the same function) is that finding's, not a second one.
    func describeRunningTasks(of checkpoint: TestCheckpoint) {
        let running = trackedTasks.entries(of: checkpoint.test)
        guard !running.isEmpty else { return }
        let explained = userFrames(ofOtherLiveResourcesOf: checkpoint)
        // A task started by code nested in the function where another waiting resource was made
        // (an effect's operation starting the task it then waits for) is part of that wait.
        let explainedFunctions = userFunctions(ofOtherLiveResourcesOf: checkpoint)
        for entry in running {
            guard let state = TaskState(task: entry.task), !state.isComplete else { continue }
            let chain = suspendedChain(of: entry.task)
            let startedByOther = startingFunction(of: entry.stack).map { starter in
                explainedFunctions.contains { starter != $0 && starter.hasSuffix(" in " + $0) }
            }
            if chain.isCaptured && !explained.isDisjoint(with: userFrames(of: chain)) || startedByOther == true {
                // The same wait, told once: by the finding of what it waits for.
                if let taken = trackedTasks.take(task: entry.task) {
                    ledger.unregister(taken.token)
                    Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(bitPattern: taken.task)!).release()
                }
                continue
            }
            if chain.isCaptured {
                explainLeaks(of: .task, label: entry.label, allocatedAt: entry.stack, by: chain, role: "suspended")
            }
            var note = Self.runningTaskNote(state, suspended: chain.isCaptured, detached: entry.detached)
            if configuration.explainsRetainPaths, entry.context != 0 {
                note += Self.heldObjectsNote(
                    retainPathExplainer(limits: configuration.retainPathLimits)
                        .objectsHeld(byClosureContext: entry.context))
            }
            let sentence = note
            annotateLeaks(of: .task, label: entry.label, allocatedAt: entry.stack) { sentence }
        }
    }

    /// After the leaks are recorded: forgets the test's tasks (their findings keep what they
    /// showed), releasing them and ending their resources.
    func forgetTasks(of checkpoint: TestCheckpoint) {
        let taken = trackedTasks.take(test: checkpoint.test)
        guard !taken.isEmpty else { return }
        leakRelations.withLock { relations in
            for entry in taken {
                relations.removeValue(forKey: LeakSite(kind: .task, label: entry.label, stack: entry.stack))
            }
        }
        for entry in taken {
            ledger.unregister(entry.token)
            Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(bitPattern: entry.task)!).release()
        }
    }

    /// Where a retained task is suspended, interned; `.none` when it is running or could not
    /// be read.
    private func suspendedChain(of task: UInt) -> StackID {
        let depth = max(hotStackDepth.load(ordering: .relaxed), StackCapture.defaultDepth)
        return withUnsafeTemporaryAllocation(of: UInt.self, capacity: depth) { buffer in
            let count = buffer.withMemoryRebound(to: UnsafeMutableRawPointer.self) { pointers in
                Int(
                    rdiag_task_suspended_chain(
                        UnsafeMutableRawPointer(bitPattern: task)!, pointers.baseAddress!, Int32(depth)))
            }
            guard count > 0 else { return .none }
            return stacks.intern(UnsafeBufferPointer(rebasing: buffer[0..<count]))
        }
    }

    /// The functions of the user's frames of `stack` (symbolized, cached): a resume point and
    /// a return address in one function are the same wait seen from two sides.
    private func userFrames(of stack: StackID) -> Set<String> {
        Set(symbolize(stack).frames.filter { $0.category == .user }.compactMap { $0.symbol.map(Self.entrySymbol) })
    }

    /// `$s4Feed5ModelC6listenyyYaFTY0_` → `$s4Feed5ModelC6listenyyYaF`: an async function's resume
    /// partial functions named by the function they belong to.
    static func entrySymbol(_ symbol: String) -> String {
        ResumeSymbol.function(of: symbol).map(String.init) ?? symbol
    }

    /// The demangled names of the user's functions in the stacks of the other resources of the
    /// test that wait for something in a task.
    private func userFunctions(ofOtherLiveResourcesOf checkpoint: TestCheckpoint) -> Set<String> {
        let waiting: Set<ResourceKind> = [.iteration, .continuation, .callback, .task]
        let followed = Set(trackedTasks.entries(of: checkpoint.test).map(\.token))
        var functions = Set<String>()
        for resource in liveResources(of: checkpoint)
        where waiting.contains(resource.kind) && !followed.contains(resource.token) && resource.stack.isCaptured {
            functions.formUnion(
                symbolize(resource.stack).frames.filter { $0.category == .user }.compactMap {
                    $0.function.map(Self.functionOfResumePoint)
                })
        }
        return functions
    }

    /// The function that started a task: the first user frame of its creation stack.
    private func startingFunction(of stack: StackID) -> String? {
        symbolize(stack).frames.first { $0.category == .user }?.function.map(Self.functionOfResumePoint)
    }

    /// `(1) suspend resume partial function for closure #1 … in F` → `closure #1 … in F`: the
    /// function an async resume point belongs to.
    static func functionOfResumePoint(_ name: String) -> String {
        guard name.hasPrefix("("), let range = name.range(of: " partial function for ") else { return name }
        return String(name[range.upperBound...])
    }

    /// The user's frames of the other resources of the test that wait for something in a
    /// task: iterations, continuations, effects, diagnosed tasks.
    private func userFrames(ofOtherLiveResourcesOf checkpoint: TestCheckpoint) -> Set<String> {
        let waiting: Set<ResourceKind> = [.iteration, .continuation, .callback, .task]
        let followed = Set(trackedTasks.entries(of: checkpoint.test).map(\.token))
        var frames = Set<String>()
        for resource in liveResources(of: checkpoint)
        where waiting.contains(resource.kind) && !followed.contains(resource.token) && resource.stack.isCaptured {
            frames.formUnion(userFrames(of: resource.stack))
        }
        return frames
    }

    /// What the task's closure keeps alive while it runs, as a sentence (empty for nothing).
    static func heldObjectsNote(_ held: [(type: String, strength: String)]) -> String {
        guard !held.isEmpty else { return "" }
        let named = held.prefix(3).map { "`\($0.type)`" + ($0.strength == "strong" ? "" : " (\($0.strength))") }
        let more = held.count > 3 ? " and \(held.count - 3) more" : ""
        return ". Until it ends it keeps alive what its closure captured: " + named.joined(separator: ", ") + more
    }

    /// What a task still running at the test's end means, and its fix.
    static func runningTaskNote(_ state: TaskState, suspended: Bool, detached: Bool) -> String {
        var note: String
        if state.isCancelled {
            note =
                "It was cancelled but has not ended: what it awaits ignores cancellation (a continuation nobody "
                + "resumes, a sequence whose iterator never checks)"
        } else if suspended {
            note =
                "It is suspended, waiting for something that never came (see where it is suspended): a `for await` "
                + "loop over a sequence nobody finishes, a continuation nobody resumes, or a sleep nobody cancels"
        } else {
            note = "It is running, not suspended: a loop that never awaits, or that never checks for cancellation"
        }
        note +=
            ". Fix: keep the task and cancel it when its owner goes away (in deinit, or when the screen closes), "
            + "or finish what it waits for; capture `self` weakly in a loop that may outlive it"
        if detached {
            note += " (a detached task inherits no cancellation: only its handle can cancel it)"
        }
        return note
    }
}

/// The one function the C layer tells of unstructured tasks; the engines it asks are the
/// ``HookedEngines`` registered for `.tasks`.
enum TaskCreationHook {
    /// Whether the hook is set: the platform has it and the runtime's layout checked out.
    static let isInstalled: Bool = {
        guard rdiag_task_hook_available() != 0, rdiag_task_layout_known() != 0, TaskLayoutCheck.passes() else {
            return false
        }
        rdiag_task_hook_set { task, detached, context in
            TaskCreationHook.taskStarted(task, detached: detached != 0, context: context)
        }
        return true
    }()

    static func register(_ engine: DiagnosticsEngine) {
        guard isInstalled else { return }
        HookedEngines.register(engine, for: .tasks)
    }

    static func taskStarted(_ task: UnsafeMutableRawPointer, detached: Bool, context: UnsafeMutableRawPointer?) {
        HookedEngines.first(for: .tasks) { $0.followTask(task, detached: detached, context: context) }
    }
}

/// Checks once, against tasks of our own in known states (running, suspended on a
/// continuation, completed), that the task header reads as the runtime writes it.
enum TaskLayoutCheck {
    /// Tasks of our own in each state, and what their headers said.
    static func passes() -> Bool {
        let verdict = LockedValue<Bool?>(nil)
        let done = DispatchSemaphore(value: 0)
        // A thread of its own: the check waits for tasks, which must not wait for this thread.
        let thread = Thread {
            verdict.withLock { $0 = check() }
            done.signal()
        }
        thread.name = "ReactiveDiagnostics task layout check"
        thread.start()
        guard done.wait(timeout: .now() + 15) == .success else { return false }
        return verdict.withLock { $0 } ?? false
    }

    private static func check() -> Bool {
        let parked = Parked()
        let runningOK = LockedValue(false)
        // On a queue of its own, not Swift's cooperative pool, which other work may keep busy
        // for seconds: the check must not time out on a loaded machine.
        let executor = CheckQueueExecutor(label: "ReactiveDiagnostics task layout check")
        let task = DiagnosticsEngine.startingOwnTasks {
            Task.detached(executorPreference: executor) { () -> Int in
                if let current = rdiag_task_current() {
                    let state = TaskState(task: UInt(bitPattern: current))
                    runningOK.withLock { $0 = state.map { $0.isRunning && !$0.isComplete } ?? false }
                }
                await withCheckedContinuation { parked.park($0) }
                return 1
            }
        }
        let address = unsafeBitCast(task, to: UInt.self)
        guard parked.waitParked(), runningOK.withLock({ $0 }) else { return false }
        // Suspended: not running, not complete, waiting on its continuation, a context to resume.
        var suspended = false
        for _ in 0..<2_500 {
            var state = rdiag_task_state()
            if rdiag_task_read_state(UnsafeMutableRawPointer(bitPattern: address)!, &state) == 0,
                state.status_flags & UInt32(RDIAG_TASK_RUNNING) == 0
            {
                suspended =
                    state.status_flags & UInt32(RDIAG_TASK_COMPLETE) == 0
                    && state.status_flags & UInt32(RDIAG_TASK_SUSPENDED_ON_DEPENDENCY) != 0
                    && state.resume_context != 0 && state.future_status == 0
                break
            }
            usleep(2_000)
        }
        parked.resume()
        guard suspended else { return false }
        // Completed: the future holds its value.
        var completed = false
        for _ in 0..<2_500 {
            var state = rdiag_task_state()
            guard rdiag_task_read_state(UnsafeMutableRawPointer(bitPattern: address)!, &state) == 0 else { break }
            if state.status_flags & UInt32(RDIAG_TASK_COMPLETE) != 0 {
                completed = state.future_status == 1 && state.status_flags & UInt32(RDIAG_TASK_RUNNING) == 0
                break
            }
            usleep(2_000)
        }
        return withExtendedLifetime(task) { completed }
    }

    /// A continuation parked by the check's task, resumed by the check.
    private final class Parked: @unchecked Sendable {
        // Unchecked: `continuation` is only touched under `lock`.
        private let lock = NSLock()
        private var continuation: CheckedContinuation<Void, Never>?
        private let parked = DispatchSemaphore(value: 0)

        func park(_ continuation: CheckedContinuation<Void, Never>) {
            lock.withLock { self.continuation = continuation }
            parked.signal()
        }

        func waitParked() -> Bool {
            parked.wait(timeout: .now() + 5) == .success
        }

        func resume() {
            let continuation = lock.withLock { self.continuation.take() }
            continuation?.resume()
        }
    }
}

/// Runs a start-up check's jobs on a dispatch queue of its own, not Swift's cooperative pool,
/// which other work may keep busy for seconds: a check must not time out on a loaded machine.
final class CheckQueueExecutor: TaskExecutor, @unchecked Sendable {
    // Unchecked: immutable; the queue is thread-safe.
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
