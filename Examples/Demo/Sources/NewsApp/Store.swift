import Dispatch

/// A small unidirectional store: actions go in through `send`, a reducer changes the state
/// and may return an effect, whose result is sent back in as another action.
///
/// `send` must be called on the main queue: the state drives the UI.
public final class Store<State, Action>: @unchecked Sendable {
    /// Work that ends by sending one action back into the store.
    public struct Effect: Sendable {
        public let run: @Sendable (_ send: @escaping @Sendable (Action) -> Void) -> Void

        public init(_ run: @escaping @Sendable (_ send: @escaping @Sendable (Action) -> Void) -> Void) {
            self.run = run
        }
    }

    /// Runs an effect and feeds its action back (the seam tests use to watch effects).
    public typealias EffectRunner = (_ effect: Effect, _ send: @escaping @Sendable (Action) -> Void) -> Void

    public private(set) var state: State
    private let reducer: (inout State, Action) -> Effect?
    private let runEffect: EffectRunner

    public init(
        initial: State, reducer: @escaping (inout State, Action) -> Effect?,
        runEffect: @escaping EffectRunner = { effect, send in effect.run(send) }
    ) {
        state = initial
        self.reducer = reducer
        self.runEffect = runEffect
    }

    public func send(_ action: Action) {
        guard let effect = reducer(&state, action) else { return }
        runEffect(effect) { [weak self] action in self?.send(action) }
    }
}
