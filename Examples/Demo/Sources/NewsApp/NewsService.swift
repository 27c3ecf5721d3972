import Dispatch
import Foundation
import OpenCombineShim

/// The app's backend, faked: answers arrive later, on a background queue, like a network's.
public final class NewsService: @unchecked Sendable {
    private let network = DispatchQueue(label: "news.network")
    private let headlines = CurrentValueSubject<[String], Never>(["Swift 6.3 released", "Combine on Linux"])

    public init() {}

    /// Headlines, live: the current list now and a new one whenever the desk publishes.
    /// Like most "live" streams, it never completes.
    public func liveHeadlines() -> AnyPublisher<[String], Never> {
        headlines.eraseToAnyPublisher()
    }

    /// Publishes a new list of headlines.
    public func publish(_ list: [String]) {
        headlines.send(list)
    }

    /// Search results for `query`, after a short delay, on the network queue.
    public func search(_ query: String) -> AnyPublisher<[String], Never> {
        Future { promise in
            let promise = Promise(fulfill: promise)
            self.network.asyncAfter(deadline: .now() + 0.02) {
                promise.fulfill(.success(["\(query): first result", "\(query): second result"]))
            }
        }
        .eraseToAnyPublisher()
    }

    /// Downloads an image, later, on the network queue.
    public func image(at url: String) -> AnyPublisher<String, Never> {
        Future { promise in
            let promise = Promise(fulfill: promise)
            self.network.asyncAfter(deadline: .now() + 0.05) { promise.fulfill(.success("pixels of \(url)")) }
        }
        .eraseToAnyPublisher()
    }

    /// Loads the user's settings and calls back on the network queue (as URLSession does).
    public func loadSettings(_ completion: @escaping @Sendable (Settings) -> Void) {
        network.asyncAfter(deadline: .now() + 0.01) { completion(Settings(fontSize: 17, darkMode: true)) }
    }
}

/// A Future's promise, carried to the network queue. OpenCombine's promise is not `Sendable`,
/// but a Future accepts being fulfilled from any thread.
private struct Promise<Value>: @unchecked Sendable {
    let fulfill: (Result<Value, Never>) -> Void
}

/// The user's settings.
public struct Settings: Equatable, Sendable {
    public var fontSize: Int
    public var darkMode: Bool

    public init(fontSize: Int, darkMode: Bool) {
        self.fontSize = fontSize
        self.darkMode = darkMode
    }
}
