import OpenCombineShim
import ReactiveDiagnostics

extension Publishers.Diagnosed {
    /// Attaches a `Sink` to the checked stream, exactly as `Publisher.sink` does, with the
    /// stage's subscription built in code specialized for this sink.
    ///
    /// `Publisher.sink` reaches the stage through the framework's unspecialized generic code,
    /// which makes the Swift runtime look up the stage's subscription type for the sink
    /// (generic metadata) on every subscription. Called on the stage itself, as in the usual
    /// `.diagnosed(…).sink { … }`, this overload is chosen instead and that lookup is done once.
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
        let subscriber = Subscribers.Sink<Output, Failure>(receiveCompletion: receiveCompletion, receiveValue: receiveValue)
        subscribeSpecialized(subscriber)
        return AnyCancellable(subscriber)
    }

    /// What `Publisher.subscribe(_:)` does, without leaving specialized code when no
    /// introspection hook runs (with one, through `subscribe(_:)`, so the hook sees it).
    @inlinable
    func subscribeSpecialized<Downstream: Subscriber>(_ subscriber: Downstream)
    where Downstream.Input == Output, Downstream.Failure == Failure {
        #if canImport(Combine)
        subscribe(subscriber)
        #else
        if CombineInstrumentation.isHookInstalled {
            subscribe(subscriber)
        } else {
            receive(subscriber: subscriber)
        }
        #endif
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
