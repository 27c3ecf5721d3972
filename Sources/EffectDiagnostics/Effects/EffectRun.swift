/// A started effect, returned by ``DiagnosedEffect/run(expecting:engine:_:)``: keep it to
/// cancel the effect.
///
/// ```swift
/// let run = DiagnosedEffect<Action>.task("search") { .results(await api.search(query)) }
///     .run(expecting: .mainQueue) { store.send($0) }
/// // the user typed again:
/// run.cancel()
/// ```
public struct EffectRun: Sendable {
    /// The effect's label.
    public let label: String
    private let cancellation: @Sendable () -> Void

    init(label: String, cancel: @escaping @Sendable () -> Void) {
        self.label = label
        cancellation = cancel
    }

    /// Cancels the effect: nothing it sends from now on reaches the store.
    ///
    /// A one-shot or long-lived effect ends now; an ``DiagnosedEffect/task(_:priority:_:)``
    /// effect ends when its operation returns. Cancelling twice, or after the effect ended,
    /// does nothing.
    public func cancel() {
        cancellation()
    }
}
