import ReactiveDiagnostics

extension StreamMonitor.Options {
    /// What a Combine stream is checked for: a subscription first, demand (Reactive Streams
    /// back-pressure), and premature cancellation by a released `AnyCancellable`.
    ///
    /// ```swift
    /// let monitor = engine.makeStreamMonitor(label: DiagnosticLabel("feed"), options: .combine)
    /// ```
    package static let combine: StreamMonitor.Options = {
        CombineRetainPaths.registerPlumbing()
        return StreamMonitor.Options(
            tracksDemand: true, expectsSubscription: true, resourceKind: .subscription,
            prematureCancellationMarkers: combinePrematureCancellationMarkers)
    }()

    /// Demangled-name fragments of a released `AnyCancellable` cancelling its stream:
    /// `OpenCombine.AnyCancellable.deinit` (or `Combine.…`), and the deallocating entry point
    /// that optimized builds may fold the `deinit` body into.
    package static let combinePrematureCancellationMarkers = [
        "AnyCancellable.deinit", "AnyCancellable.__deallocating_deinit",
    ]
}
