import _ReactiveDiagnosticsSupport
extension DiagnosticsEngine {
    /// Runs a test's body so that the unstructured tasks it starts (`Task { … }`, directly or
    /// from tasks it started, in the app's code as in the test's) can be seen at the test's end:
    /// one still running then is a ``FindingKind/leakedResource`` of resource kind `task`.
    ///
    /// ```swift
    /// let checkpoint = engine.beginTest(named: "TickerTests.showsPrices()", serial: false)
    /// await engine.trackingUnstructuredTasks(of: checkpoint) {
    ///     model.start()          // Task { for await price in prices { self.show(price) } }
    /// }
    /// let outcome = await engine.finishTest(checkpoint)   // the loop still runs: a finding
    /// ```
    ///
    /// How: the body runs with a marker object bound as a task-local value. `Task { … }` copies
    /// the task-local values of the code that starts it, so every unstructured task started in
    /// the body holds the marker until it completes; the engine keeps it only weakly. If the
    /// marker is still alive at the test's end (after the settle time), a task is still running.
    /// `Task.detached` copies no task-local value and is not seen; child tasks (`async let`,
    /// task groups) end with their parent and need no tracking. The finding cannot say where
    /// the task was started (start it with `Task.diagnosed` of ConcurrencyDiagnostics for
    /// that), and is not made when the test already has a finding that explains the task: an
    /// iteration, a continuation, an effect or a diagnosed task still alive.
    ///
    /// The test glue (the `.diagnosed` trait, `DiagnosedTestCase`) does this for every test.
    public func trackingUnstructuredTasks<Result>(
        of checkpoint: TestCheckpoint, isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async rethrows -> Result {
        let sentinel = TaskSentinel()
        taskSentinels.withLock { $0[checkpoint] = WeakTaskSentinel(sentinel) }
        return try await TaskSentinel.$current.withValue(sentinel, operation: body, isolation: isolation)
    }

    /// The synchronous form, for XCTest's `invokeTest()`: task-local values bound outside any
    /// task are copied by the tasks started on the same thread.
    public func trackingUnstructuredTasks<Result>(
        of checkpoint: TestCheckpoint, _ body: () throws -> Result
    ) rethrows -> Result {
        let sentinel = TaskSentinel()
        taskSentinels.withLock { $0[checkpoint] = WeakTaskSentinel(sentinel) }
        return try TaskSentinel.$current.withValue(sentinel, operation: body)
    }

    /// Whether an unstructured task the test started is still running.
    func hasUnstructuredTasks(_ checkpoint: TestCheckpoint) -> Bool {
        taskSentinels.withLock { $0[checkpoint] }?.isAlive ?? false
    }

    /// Records the test's unstructured tasks still running, unless another finding of the test
    /// already explains them; forgets the test's marker.
    func recordUnstructuredTasks(of checkpoint: TestCheckpoint) {
        guard let marker = taskSentinels.withLock({ $0.removeValue(forKey: checkpoint) }), marker.isAlive else {
            return
        }
        let explaining: Set<ResourceKind> = [.iteration, .continuation, .task, .callback]
        let explained = findingStore.after(checkpoint.findingIndex).contains { finding in
            finding.test == checkpoint.test && finding.kind.isLifetime
                && finding.resourceKind.map(explaining.contains) == true
        }
        guard !explained else { return }
        let name = checkpoint.test.name ?? "the test"
        record(
            FindingDraft(
                kind: .leakedResource,
                message:
                    "an unstructured task started during the test (`Task { … }`) is still running at its end, with everything it holds: "
                    + "a `for await` loop over a stream nobody finishes, a continuation nobody resumes, or a sleep nobody cancels? "
                    + "Keep the task and cancel it, or start it with `Task.diagnosed` (ConcurrencyDiagnostics) to see where it was started",
                label: "unstructured tasks of \(name)", resourceKind: .task, test: checkpoint.test,
                capturesEventStack: false,
                details: ["resourceKind": ResourceKind.task.name, "detectedBy": "task-local marker"]))
    }
}

/// The marker the unstructured tasks of a test hold (a task-local value they copy).
final class TaskSentinel: Sendable {
    @TaskLocal static var current: TaskSentinel?
}

/// The engine's weak reference to a test's marker: alive while a task holds it.
struct WeakTaskSentinel: @unchecked Sendable {
    // Unchecked: a weak reference is loaded atomically by the runtime; the marker is never used.
    private weak var sentinel: TaskSentinel?

    init(_ sentinel: TaskSentinel) {
        self.sentinel = sentinel
    }

    var isAlive: Bool {
        sentinel != nil
    }
}
