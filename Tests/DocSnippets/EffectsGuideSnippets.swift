// The blocks of Docs/EffectsAndNotifications.md, verbatim (see this folder's README.md).

import EffectDiagnostics
import Foundation
import Testing

/// Docs/EffectsAndNotifications.md's snippets.
enum EffectsGuide {}

// "A store and its effects"
extension EffectsGuide {
    /// State is mutated only in `send`, on the main queue: the convention `expecting: .mainQueue` checks.
    final class FeedStore: @unchecked Sendable {
        enum Action: Sendable { case refresh, loaded([String]), select(Int), detailLoaded(String) }

        private(set) var items: [String] = []
        private(set) var detail: String?
        private let api: FeedAPI

        init(api: FeedAPI) { self.api = api }

        func send(_ action: Action) {
            for effect in reduce(action) {
                // The store states its rule once, for every effect it runs.
                effect.run(expecting: .mainQueue) { [weak self] action in self?.send(action) }
            }
        }

        private func reduce(_ action: Action) -> [DiagnosedEffect<Action>] {
            switch action {
            case .refresh:
                let api = self.api
                return [DiagnosedEffect("load feed") { send in
                    api.fetchFeed { items in                      // answers on the API's own queue
                        DispatchQueue.main.async { send(.loaded(items)) }
                    }
                }]
            case .loaded(let items):
                self.items = items
                return []
            case .select(let index):
                return [.task("load detail") { [api] in .detailLoaded(await api.detail(index)) }]
            case .detailLoaded(let detail):
                self.detail = detail
                return []
            }
        }
    }
}

// "The forms"
extension EffectsGuide {
    final class ProfileScreen: @unchecked Sendable {
        var profile: Profile?
        var results: [String] = []
        var query = "swift"
        var search: Task<Void, Never>?

        func start(api: ProfileAPI, timer: CountdownTimer, store: CountdownStore) {
            // A completion handler: the function form.
            let apply = diagnosedCallback("load profile", expecting: .mainQueue) { [weak self] (profile: Profile) in
                self?.profile = profile
            }
            api.loadProfile { profile in DispatchQueue.main.async { apply(profile) } }

            // A long-lived effect with a contract: 1 to 10 ticks, must end by itself, on the main queue.
            let countdown = DiagnosedEffect<Action>.stream("countdown", contract: StreamContract(values: 1...10, termination: .required)) { emitter in
                timer.onTick = { seconds in DispatchQueue.main.async { emitter(.tick(seconds)) } }
                timer.onDone = { DispatchQueue.main.async { emitter.finish() } }
                timer.start()
            }
            countdown.run(expecting: .mainQueue) { store.send($0) }

            // An async function awaited on the main actor.
            search = Task { @MainActor in
                results = await withDiagnosedEffect("search", expecting: .mainQueue) { await api.search(query) }
            }
        }
    }
}

// "Notification observers"
extension EffectsGuide {
    final class SessionWatcher {
        private let center = NotificationCenter.default.diagnosed()   // or DiagnosedNotificationCenter(.default)
        private var token: (any NSObjectProtocol)?

        func start(onExpiry: @escaping @Sendable () -> Void) {
            token = center.addObserver(forName: .sessionExpired, queue: .main, expecting: .mainQueue) { _ in
                onExpiry()
            }
        }

        func stop() {
            if let token { center.removeObserver(token) }
            token = nil
        }
    }
}

// "In place of a NotificationCenter": only where NotificationCenter's methods can be overridden.
#if canImport(Darwin) || !compiler(>=6.3)
extension EffectsGuide {
    struct Substitute {
        final class ThemeFollower {
            private let center: NotificationCenter
            private var token: (any NSObjectProtocol)?

            init(center: NotificationCenter = .default) {
                self.center = center
            }

            func start() {
                token = center.addObserver(forName: .themeChanged, object: nil, queue: nil) { _ in /* … */ }
            }
        }

        // In the test: the follower's forgotten token is an observerNotRemoved finding at `start()`.
        let follower = ThemeFollower(center: NotificationCenter.default.diagnosed().asNotificationCenter)
    }
}
#endif

// "In tests"
extension EffectsGuide {
    struct StoreTests {
        let store = FeedStore(api: FeedAPI())

        @Test func refreshLoadsTheFeed() async {
            let engine = DiagnosticsEngine.shared
            let checkpoint = engine.beginTest(named: "FeedTests.refreshLoadsTheFeed()", serial: false)
            await TestIdentity.$current.withValue(checkpoint.test) {
                await MainActor.run { store.send(.refresh) }
                // … wait for the store …
            }
            let outcome = await engine.finishTest(checkpoint)   // settles, then records what is still alive
            #expect(outcome.failures.isEmpty, "\(outcome.failures.map { engine.describe($0) })")
        }
    }
}
