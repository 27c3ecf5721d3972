public import OpenCombineShim
import ReactiveDiagnostics

extension Publishers.Diagnosed {
    /// Attaches a `Sink` to the checked stream, as `Publisher.sink` does, fused with the
    /// stage: one object (`SinkInner`) checks the stream and calls the closures, so counting
    /// the subscription adds no stage to it.
    ///
    /// It behaves as the stage followed by `Subscribers.Sink`: unlimited demand, the closures
    /// released once the stream completes or is cancelled. When the engine is disabled it is
    /// the upstream's own `sink`.
    ///
    /// ```swift
    /// feed.items
    ///     .diagnosed("feed")
    ///     .sink(receiveCompletion: { _ in }, receiveValue: { items = $0 })
    ///     .store(in: &cancellables)
    /// ```
    ///
    /// - Parameters:
    ///   - receiveCompletion: Called with the stream's completion.
    ///   - receiveValue: Called with each value.
    /// - Returns: The subscription: cancel it (or release it) to end the stream.
    @inlinable
    public func sink(
        receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
        receiveValue: @escaping (Output) -> Void
    ) -> AnyCancellable {
        guard engine.isEnabled else {
            return upstream.sink(receiveCompletion: receiveCompletion, receiveValue: receiveValue)
        }
        // Captures the allocation stack here, inside the `sink` call.
        let subscriber = SinkInner(
            engine: engine, label: label, contract: contract, receiveCompletion: receiveCompletion,
            receiveValue: receiveValue)
        subscribeUpstream(subscriber)
        return AnyCancellable(subscriber)
    }
}

extension Publishers.Diagnosed where Failure == Never {
    /// Attaches a `Sink` to a checked stream that never fails, exactly as `Publisher.sink`
    /// does; see ``sink(receiveCompletion:receiveValue:)`` for why the stage has its own.
    ///
    /// ```swift
    /// viewModel.$title
    ///     .diagnosed("title")
    ///     .sink { label.text = $0 }
    ///     .store(in: &cancellables)
    /// ```
    ///
    /// - Parameter receiveValue: Called with each value.
    /// - Returns: The subscription: cancel it (or release it) to end the stream.
    @inlinable
    public func sink(receiveValue: @escaping (Output) -> Void) -> AnyCancellable {
        sink(receiveCompletion: { _ in }, receiveValue: receiveValue)
    }
}
