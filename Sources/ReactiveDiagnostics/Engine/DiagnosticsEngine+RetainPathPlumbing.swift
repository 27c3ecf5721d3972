import ReactiveDiagnosticsRetainPaths
/// The framework types a retain-path walk treats as plumbing, for adapters in other packages
/// (the nested RxSwift package).
///
/// Not API (Docs/PublicAPI.md): `@_spi(Integration)`, a narrow door to the engine's
/// `RetainPathPlumbing`, which is `package`. Import with
/// `@_spi(Integration) import ReactiveDiagnostics`.
extension DiagnosticsEngine {
    /// Adds a test for a framework's plumbing types (its observers, subscribers, disposables):
    /// a loop through them alone is how every live subscription is built, not a retain cycle.
    /// Process-wide: every engine's walk uses it.
    ///
    /// ```swift
    /// DiagnosticsEngine.registerRetainPathPlumbing { type in
    ///     type is any ObserverType.Type || type is any Disposable.Type
    /// }
    /// ```
    @_spi(Integration) public static func registerRetainPathPlumbing(
        _ isPlumbing: @escaping @Sendable (Any.Type) -> Bool
    ) {
        RetainPathPlumbing.register(isPlumbing)
    }
}
