import ReactiveDiagnosticsReport

extension DiagnosticsEngine {
    /// Why `object` is still alive: the shortest loop of strong references from it back to
    /// itself through the user's code (a retain cycle, with the owner, its property and the
    /// capturing closure's line), or, when there is none, what it holds of the user's.
    ///
    /// The engine calls this for every leaked subscription at the test's checkpoint; it is
    /// public for tests that want to ask about an object of their own. It reads memory without
    /// ever faulting or retaining, and stops at `limits`.
    ///
    /// ```swift
    /// let path = DiagnosticsEngine.shared.retainPath(of: subscriber)
    /// print(path.textLines().joined(separator: "\n"))
    /// ```
    public func retainPath(of object: AnyObject, limits: RetainPathLimits? = nil) -> ReportRetainPath {
        withExtendedLifetime(object) {
            RetainPathBuilder(limits: limits ?? configuration.retainPathLimits)
                .explain(anchor: UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque()))
        }
    }
}
