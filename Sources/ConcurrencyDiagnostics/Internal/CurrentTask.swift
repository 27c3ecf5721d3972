/// A small key for the task running the caller, to tell consumers apart cheaply.
enum CurrentTask {
    /// The running task's key (never 0), or 0 outside any task. Different tasks alive at the
    /// same time almost always get different keys; a collision only costs a less precise stack.
    static var key: UInt32 {
        withUnsafeCurrentTask { task in
            guard let task else { return 0 }
            return UInt32(truncatingIfNeeded: task.hashValue) | 1
        }
    }
}
