import ReactiveDiagnostics

/// Runs an `async` effect as a live `callback` resource until it returns.
///
/// For stores that manage their own tasks: the effect is alive from this call until
/// `operation` returns or throws, so a task still suspended in it at the end of the test is
/// reported as `callbackNeverCalled`, with the stack of the code that called this function.
/// The result arrives on the caller's isolation; `expecting` checks that place (for example
/// `.mainQueue` in a `@MainActor` store).
///
/// Cancellation: a cancelled task that returns or throws (`CancellationError`) ends the
/// effect normally; one that ignores cancellation and stays suspended is still reported.
///
/// ```swift
/// @MainActor final class SearchStore {
///     private(set) var results: [String] = []
///     private var search: Task<Void, Never>?
///
///     func queryChanged(_ query: String) {
///         search?.cancel()
///         search = Task {
///             let found = await withDiagnosedEffect("search", expecting: .mainQueue) {
///                 await api.search(query)
///             }
///             results = found
///         }
///     }
/// }
/// ```
///
/// - Parameters:
///   - label: Names the effect in findings.
///   - expecting: Where the result must arrive; `nil` for anywhere.
///   - engine: The engine findings go to.
///   - isolation: The caller's actor; the operation runs there.
///   - operation: The effect.
/// - Returns: What `operation` returns.
/// - Throws: What `operation` throws.
// Transparent: Swift enters async functions with tail calls, so a stack captured inside one
// no longer holds its caller. Inlined into the caller, the (synchronous) capture in
// `TrackedResource.start` runs on the caller's own frame and the allocation stack shows it.
@_transparent
public func withDiagnosedEffect<Result, Failure: Error>(
    _ label: String, expecting: ThreadExpectation? = nil, engine: DiagnosticsEngine = .shared,
    isolation: isolated (any Actor)? = #isolation, _ operation: () async throws(Failure) -> Result
) async throws(Failure) -> Result {
    guard engine.isEnabled else { return try await operation() }
    let resource = TrackedResource.start(.callback, label: DiagnosticLabel(label), engine: engine)
    let result: Result
    do {
        result = try await operation()
    } catch {
        resource.end()
        throw error
    }
    resource.checkThread(expecting, noun: "effect", event: "returned its result")
    resource.end()
    return result
}
