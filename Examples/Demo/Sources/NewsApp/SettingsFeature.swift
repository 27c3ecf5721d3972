import Dispatch

/// The settings screen's state and actions.
public enum SettingsFeature {
    public struct State: Equatable, Sendable {
        public var settings: Settings?
        public var isLoading = false

        public init() {}
    }

    public enum Action: Sendable {
        case appear
        case loaded(Settings)
    }

    /// The reducer: loading settings is an effect that calls the service.
    public static func reducer(service: NewsService) -> (inout State, Action) -> Store<State, Action>.Effect? {
        { state, action in
            switch action {
            case .appear:
                state.isLoading = true
                return Store<State, Action>.Effect { send in
                    service.loadSettings { settings in
                        if DemoVariant.fixesApplied {
                            // Fixed: back to the main queue before the store changes its state.
                            DispatchQueue.main.async { send(.loaded(settings)) }
                        } else {
                            // Bug: the result is sent from the network queue, so the store's
                            // state (and the UI) changes off the main queue.
                            send(.loaded(settings))
                        }
                    }
                }
            case .loaded(let settings):
                state.settings = settings
                state.isLoading = false
                return nil
            }
        }
    }
}
