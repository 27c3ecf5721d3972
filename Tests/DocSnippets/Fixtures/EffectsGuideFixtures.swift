import Foundation

// Stand-ins for the app code Docs/EffectsAndNotifications.md's snippets use.
extension EffectsGuide {
    /// Answers on a queue of its own, as a networking layer does.
    struct FeedAPI: Sendable {
        func fetchFeed(_ completion: @escaping @Sendable ([String]) -> Void) {
            DispatchQueue.global().async { completion(["Swift 6.3 released"]) }
        }

        func detail(_ index: Int) async -> String { "item \(index)" }
    }

    struct Profile: Sendable {
        var name: String
    }

    struct ProfileAPI: Sendable {
        func loadProfile(_ completion: @escaping @Sendable (Profile) -> Void) {
            DispatchQueue.global().async { completion(Profile(name: "Ada")) }
        }

        func search(_ query: String) async -> [String] { [query] }
    }

    enum Action: Sendable { case tick(Int) }

    final class CountdownStore: Sendable {
        func send(_ action: Action) {}
    }

    /// Ticks down once a second on a queue of its own.
    final class CountdownTimer: @unchecked Sendable {
        var onTick: (@Sendable (Int) -> Void)?
        var onDone: (@Sendable () -> Void)?

        func start() {
            let onTick = onTick, onDone = onDone
            DispatchQueue.global().async {
                for seconds in (1...3).reversed() { onTick?(seconds) }
                onDone?()
            }
        }
    }
}

extension Notification.Name {
    static let sessionExpired = Notification.Name("SessionExpired")
    static let themeChanged = Notification.Name("ThemeChanged")
}
