// The blocks of Docs/Concurrency.md, verbatim (see this folder's README.md).

import ConcurrencyDiagnostics
import Foundation
import ReactiveDiagnosticsTesting
import Testing

/// Docs/Concurrency.md's snippets.
enum ConcurrencyGuide {}

// "Getting started": the app's code, and its test.
extension ConcurrencyGuide {
    final class TickerModel: @unchecked Sendable {
        private(set) var price: Int?
        private let prices: AsyncStream<Int>

        init(prices: AsyncStream<Int>) {
            self.prices = prices
        }

        func start() {
            Task {
                for await price in prices {
                    self.price = price
                }
            }
        }
    }
}

// The test, at file scope (Swift Testing's macros need it there).
typealias TickerModel = ConcurrencyGuide.TickerModel

@Suite(.diagnosed)
struct TickerModelTests {
    @Test func showsTheLatestPrice() async {
        let (prices, feed) = AsyncStream.makeDiagnosedStream("prices", of: Int.self)
        let model = TickerModel(prices: prices)
        model.start()
        feed.yield(101)
        while model.price == nil {
            await Task.yield()
        }
        #expect(model.price == 101)
    }   // fails: the model's loop still waits on 'prices'
}

// "A stream the test hands to the app"
extension ConcurrencyGuide {
    static func streams() {
        let (stream, continuation) = AsyncStream.makeDiagnosedStream(
            "quotes", of: Int.self, bufferingPolicy: .bufferingNewest(10), contract: .init(values: 1...100))
        let ticks = AsyncStream<Int>.diagnosed("ticks") { continuation in
            for tick in 1...3 { continuation.yield(tick) }
            continuation.finish()
        }
        let (pages, loader) = AsyncThrowingStream.makeDiagnosedStream("pages", of: String.self, contract: .init(allowsFailure: false))
        _ = (stream, continuation, ticks, pages, loader)
    }
}

// "Any async sequence"
extension ConcurrencyGuide {
    @MainActor
    final class FeedModel {
        var headlines: [String] = []

        func observe(_ updates: some AsyncSequence<[String], Never>) async {
            for await headlines in updates.diagnosed("headlines", expecting: .mainQueue) {
                self.headlines = headlines
            }
        }
    }
}

// "Continuations"
extension ConcurrencyGuide {
    final class Loader: Sendable {
        let api = SettingsAPI()
        let session = DownloadSession()

        func loadSettings() async -> Settings {
            await withDiagnosedContinuation("settings") { continuation in
                api.loadSettings { settings in continuation.resume(returning: settings) }
            }
        }

        func download(_ url: URL) async throws -> Data {
            try await withDiagnosedThrowingContinuation("download", expecting: .mainQueue) { continuation in
                session.download(url) { result in continuation.resume(with: result) }
            }
        }
    }
}

// "Task.diagnosed"
extension ConcurrencyGuide {
    @MainActor
    final class QuoteBoard {
        private var updates: Task<Void, Never>?

        func follow(_ quotes: AsyncStream<Int>) {
            updates = Task.diagnosed("quote updates", owner: self) { [weak self] in
                for await quote in quotes {
                    self?.show(quote)
                }
            }
        }

        func show(_ quote: Int) {}
    }
}

// "Executors"
extension ConcurrencyGuide {
    actor Database {
        let executor: DiagnosticSerialExecutor
        nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

        init(executor: DiagnosticSerialExecutor = DiagnosticSerialExecutor("database")) {
            self.executor = executor
        }
    }

    static func decodeAll(_ files: [String]) async -> [Int] {
        let decoding = DiagnosticTaskExecutor("decoding")
        return await withTaskExecutorPreference(decoding) {
            await withTaskGroup(of: Int.self) { group in
                for file in files {
                    group.addTask { file.count }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
    }
}
