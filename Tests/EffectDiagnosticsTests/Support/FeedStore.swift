import Dispatch
import EffectDiagnostics
import Foundation
@_spi(Testing) import ReactiveDiagnostics

/// A small store in the unidirectional style, as an app would write it: state is mutated
/// only in `send(_:)`, on the main queue; the reducer returns effects; the store starts them
/// and feeds their actions back through `send(_:)`.
///
/// `@unchecked Sendable` because its state is confined to the main queue by convention:
/// exactly the convention the `expecting: .mainQueue` check verifies.
final class FeedStore: @unchecked Sendable {
    enum Action: Sendable, Equatable {
        case refresh
        case loaded([String])
        case select(Int)
        case detailLoaded(String)
    }

    struct State: Equatable {
        var items: [String] = []
        var isLoading = false
        var selected: Int?
        var detail: String?
        /// Whether each action was applied on the main queue.
        var appliedOnMainQueue: [Bool] = []
    }

    private(set) var state = State()
    private let engine: DiagnosticsEngine
    private let api: FeedAPI

    init(api: FeedAPI, engine: DiagnosticsEngine) {
        self.api = api
        self.engine = engine
    }

    /// Applies an action; call on the main queue.
    func send(_ action: Action) {
        state.appliedOnMainQueue.append(MainQueue.isCurrent)
        for effect in reduce(&state, action) {
            effect.run(expecting: .mainQueue, engine: engine) { [weak self] action in
                self?.send(action)
            }
        }
    }

    private func reduce(_ state: inout State, _ action: Action) -> [DiagnosedEffect<Action>] {
        switch action {
        case .refresh:
            state.isLoading = true
            let api = self.api
            return [
                DiagnosedEffect("load feed") { send in
                    api.fetchFeed { items in
                        if api.forgetsToHopToMain {
                            send(.loaded(items))  // the bug: state mutated on the API's queue
                        } else {
                            DispatchQueue.main.async { send(.loaded(items)) }
                        }
                    }
                }
            ]
        case .loaded(let items):
            state.isLoading = false
            state.items = items
            return []
        case .select(let index):
            state.selected = index
            state.detail = nil
            return [.task("load detail") { [api] in .detailLoaded(await api.detail(index)) }]
        case .detailLoaded(let detail):
            state.detail = detail
            return []
        }
    }
}

/// A fake back end that answers on its own background queue, like a URLSession delegate queue.
struct FeedAPI: Sendable {
    let queue = DispatchQueue(label: "FeedAPI", attributes: .concurrent)
    var items = ["swift", "combine", "rx"]
    /// The bug under test: call back on the API's queue without hopping to main.
    var forgetsToHopToMain = false

    func fetchFeed(_ completion: @escaping @Sendable ([String]) -> Void) {
        let items = self.items
        queue.asyncAfter(deadline: .now() + .milliseconds(10)) { completion(items) }
    }

    func detail(_ index: Int) async -> String {
        try? await Task.sleep(for: .milliseconds(10))
        return "detail of \(items[index])"
    }
}
