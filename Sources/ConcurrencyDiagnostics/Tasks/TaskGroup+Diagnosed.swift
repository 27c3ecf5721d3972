import ReactiveDiagnostics

extension TaskGroup {
    /// Adds a child task like `addTask`, tracked from here until it returns: one still
    /// running when its test ends (the group's owner never awaited it) is a
    /// `FindingKind.leakedResource` showing where it was added.
    ///
    /// ```swift
    /// await withTaskGroup(of: Int.self) { group in
    ///     for id in ids {
    ///         group.addDiagnosedTask("load \(id)") { await loader.load(id) }
    ///     }
    /// }
    /// ```
    public mutating func addDiagnosedTask(
        _ label: String, priority: TaskPriority? = nil, engine: DiagnosticsEngine = .shared,
        operation: sending @escaping @isolated(any) () async -> ChildTaskResult
    ) {
        guard engine.isEnabled else { return addTask(priority: priority, operation: operation) }
        let tracker = TaskTracker(engine: engine, label: DiagnosticLabel(label), owner: nil)
        addTask(priority: priority) {
            defer { tracker.end() }
            return await operation()
        }
    }
}

extension ThrowingTaskGroup {
    /// Adds a throwing child task like `addTask`, tracked from here until it returns or throws.
    ///
    /// ```swift
    /// try await withThrowingTaskGroup(of: Data.self) { group in
    ///     group.addDiagnosedTask("download") { try await session.data(from: url) }
    ///     return try await group.next()
    /// }
    /// ```
    public mutating func addDiagnosedTask(
        _ label: String, priority: TaskPriority? = nil, engine: DiagnosticsEngine = .shared,
        operation: sending @escaping @isolated(any) () async throws -> ChildTaskResult
    ) {
        guard engine.isEnabled else { return addTask(priority: priority, operation: operation) }
        let tracker = TaskTracker(engine: engine, label: DiagnosticLabel(label), owner: nil)
        addTask(priority: priority) {
            defer { tracker.end() }
            return try await operation()
        }
    }
}
