import Foundation

// Stand-ins for the app code Docs/Concurrency.md's snippets use.
extension ConcurrencyGuide {
    struct Settings: Sendable {
        var darkMode: Bool
    }

    /// Calls back on a queue of its own, as a networking layer does.
    struct SettingsAPI: Sendable {
        func loadSettings(_ completion: @escaping @Sendable (Settings) -> Void) {
            DispatchQueue.global().async { completion(Settings(darkMode: true)) }
        }
    }

    struct DownloadSession: Sendable {
        func download(_ url: URL, _ completion: @escaping @Sendable (Result<Data, any Error>) -> Void) {
            DispatchQueue.main.async { completion(.success(Data(url.absoluteString.utf8))) }
        }
    }
}
