import ReactiveDiagnostics

/// Wraps a one-shot callback: it is a live `callback` resource, with the caller's stack,
/// until it has been called.
///
/// The function form of ``DiagnosedEffect``, for code that passes completion handlers around
/// rather than effect values. Reported:
/// - `callbackNeverCalled` when the returned closure is released without having been called
///   (`details["reason"] == "released"`), or is still waiting at the end of the test;
/// - `callbackCalledTwice` at the second call, with that call's stack;
/// - `wrongThread` when it is called where `expecting` rules out.
///
/// Every call is forwarded to `callback`, violations included.
///
/// ```swift
/// /// State confined to the main queue, the convention `expecting: .mainQueue` checks.
/// final class ProfileStore: @unchecked Sendable {
///     private(set) var profile: Profile?
///
///     func reload() {
///         let apply = diagnosedCallback("load profile", expecting: .mainQueue) { [weak self] (profile: Profile) in
///             self?.profile = profile
///         }
///         api.loadProfile { profile in                 // calls back on the session's queue
///             DispatchQueue.main.async { apply(profile) }
///         }
///     }
/// }
/// ```
///
/// - Parameters:
///   - label: Names the callback in findings.
///   - expecting: Where the callback must be called; `nil` for anywhere.
///   - engine: The engine findings go to.
///   - callback: What the returned closure forwards to.
/// - Returns: The closure to hand to the asynchronous code.
public func diagnosedCallback<Action>(
    _ label: String, expecting: ThreadExpectation? = nil, engine: DiagnosticsEngine = .shared,
    _ callback: @escaping @Sendable (Action) -> Void
) -> @Sendable (Action) -> Void {
    guard engine.isEnabled else { return callback }
    let state = OneShotCallback(
        resource: .start(.callback, label: DiagnosticLabel(label), engine: engine), expectation: expecting)
    return state.wrapping(callback)
}
