import Foundation
import ConcurrencyDiagnostics

/// App-style code as found in many code bases, written without any diagnostics: the tests
/// hand it diagnosed streams and check what it does with them.

/// Shows the latest price of a stock. The classic leak: a task that loops over a stream which
/// never finishes, capturing `self`, started and never cancelled.
final class TickerModel: @unchecked Sendable {
    // Unchecked: `price` is only read by the tests after the loop wrote it (through `Box`-style waits).
    private let lock = NSLock()
    private var latest: Int?
    let prices: AsyncStream<Int>

    init(prices: AsyncStream<Int>) {
        self.prices = prices
    }

    var price: Int? {
        lock.withLock { latest }
    }

    func start() {
        Task {
            for await price in prices {  // SITE: ticker loop
                self.update(price)
            }
        }
    }

    /// The fixed version: the task is kept and cancelled when the model stops.
    func startCancellable() -> Task<Void, Never> {
        Task { [prices] in
            for await price in prices {
                self.update(price)
            }
        }
    }

    private func update(_ price: Int) {
        lock.withLock { latest = price }
    }
}

/// Counts the elements of a sequence in a loop of its own.
func countElements<S: AsyncSequence & Sendable>(of sequence: S) async -> Int where S.Failure == Never {
    var count = 0
    for await _ in sequence {
        count += 1
    }
    return count
}

/// Reads pages until the stream ends.
func readPages(_ pages: AsyncThrowingStream<String, any Error>) async throws -> [String] {
    var result: [String] = []
    for try await page in pages {
        result.append(page)
    }
    return result
}

/// A callback API of the kind continuations wrap.
final class SettingsAPI: @unchecked Sendable {
    // Unchecked: the callbacks are only kept, called and cleared by the tests, one at a time.
    private let lock = NSLock()
    private var pending: [@Sendable (String) -> Void] = []

    /// Calls back later, when ``respond(_:)`` is called, or never.
    func load(_ completion: @escaping @Sendable (String) -> Void) {
        lock.withLock { pending.append(completion) }
    }

    /// Calls back every load waiting.
    func respond(_ value: String) {
        let waiting = lock.withLock { () -> [@Sendable (String) -> Void] in
            defer { pending.removeAll() }
            return pending
        }
        waiting.forEach { $0(value) }
    }

    var waiting: Int {
        lock.withLock { pending.count }
    }
}

/// Awaits the settings through a diagnosed continuation, the way app code wraps a callback.
func loadSettings(from api: SettingsAPI, engine: DiagnosticsEngine) async -> String {
    await withDiagnosedContinuation("settings", engine: engine) { continuation in
        api.load { continuation.resume(returning: $0) }
    }
}

/// The same leak with no diagnostics anywhere: the app makes its own stream.
final class ClockModel: @unchecked Sendable {
    // Unchecked: `ticks` is guarded by `lock`.
    private let lock = NSLock()
    private var ticks = 0
    private let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
    private var task: Task<Void, Never>?

    var count: Int { lock.withLock { ticks } }

    func start() {
        Task {
            for await _ in stream {
                self.tick()
            }
        }
    }

    func startKeepingTheTask() {
        task = Task { [stream] in
            for await _ in stream {
                self.tick()
            }
        }
    }

    func stop() {
        task?.cancel()
    }

    func send() {
        continuation.yield(1)
    }

    private func tick() {
        lock.withLock { ticks += 1 }
    }
}

/// App-style code written the way app developers do, with no diagnostics: tasks started in
/// its own functions, its own streams, continuations and sleeps. The tests never change it.
final class NewsFeedModel: @unchecked Sendable {
    // Unchecked: `headlines` is guarded by `lock`; the rest is set once in `init`.
    private let lock = NSLock()
    private var headlines: [String] = []
    private let (updates, feed) = AsyncStream.makeStream(of: String.self)
    private var polling: Task<Void, Never>?

    var count: Int { lock.withLock { headlines.count } }

    /// The leak: a task that loops over the model's own stream, which nobody finishes.
    func startListening() {
        Task {
            await self.listen()
        }
    }

    /// Where the loop waits.
    func listen() async {
        for await headline in updates {
            lock.withLock { headlines.append(headline) }
        }
    }

    /// A detached polling loop, kept and never cancelled.
    func startPolling() {
        polling = Task.detached { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(3600))
                self?.lock.withLock { self?.headlines.append("poll") }
            }
        }
    }

    /// A callback SDK wrapped in a checked continuation, whose callback never comes.
    func startWaitingForSettings(_ api: SettingsAPI) {
        Task {
            let value = await withCheckedContinuation { continuation in
                api.load { continuation.resume(returning: $0) }
            }
            self.lock.withLock { self.headlines.append(value) }
        }
    }

    /// The fix: the polling task is cancelled when the model stops.
    func stopPolling() {
        polling?.cancel()
    }

    func publish(_ headline: String) {
        feed.yield(headline)
    }

    func finish() {
        feed.finish()
    }
}

// MARK: Plain streams and continuations (nothing diagnosed: the stream hook sees them)

/// A location delegate bridged to an `AsyncStream`. The bug: `stop()` finishes the stream but
/// the SDK still calls back once more, and the continuation is kept.
final class LocationFeed: @unchecked Sendable {
    // Unchecked: the tests call it from one task.
    private var continuation: AsyncStream<Int>.Continuation?

    func locations() -> AsyncStream<Int> {
        AsyncStream { continuation in
            self.continuation = continuation
        }
    }

    /// The delegate callback.
    func didUpdateLocation(_ location: Int) {
        continuation?.yield(location)  // SITE: late delegate callback
    }

    func stop() {
        continuation?.finish()
    }
}

/// A callback SDK that, on a retry, calls its completion a second time.
final class LegacyWeatherClient: Sendable {
    func fetchTemperature(completion: @escaping @Sendable (Int) -> Void) {
        completion(21)
        completion(22)  // the retry's result
    }
}

/// The wrapper the app wrote around it.
func loadTemperature(from client: LegacyWeatherClient) async -> Int {
    await withCheckedContinuation { continuation in
        client.fetchTemperature { temperature in
            continuation.resume(returning: temperature)  // SITE: resumed twice
        }
    }
}

/// Two screens listening to one stream, each in a task of its own.
func startTwoListeners(to stream: AsyncStream<Int>) -> (Task<Int, Never>, Task<Int, Never>) {
    let first = Task {
        var count = 0
        for await _ in stream { count += 1 }
        return count
    }
    let second = Task {
        var count = 0
        for await _ in stream { count += 1 }  // SITE: second iterator
        return count
    }
    return (first, second)
}

/// An upload's progress: fails, then still reports progress and completes.
final class UploadProgress: Sendable {
    let updates: AsyncThrowingStream<Int, any Error>
    private let continuation: AsyncThrowingStream<Int, any Error>.Continuation

    init() {
        (updates, continuation) = AsyncThrowingStream.makeStream(of: Int.self)
    }

    func report(_ percent: Int) {
        continuation.yield(percent)  // SITE: progress after failure
    }

    func fail(_ error: any Error) {
        continuation.finish(throwing: error)
    }

    func complete() {
        continuation.finish()  // SITE: completed after failure
    }
}

/// Samples a sensor into a stream, never asking whether anyone still listens.
final class SensorPump: Sendable {
    let samples: AsyncStream<Int>
    private let continuation: AsyncStream<Int>.Continuation

    init() {
        (samples, continuation) = AsyncStream.makeStream(of: Int.self)
    }

    func pump(_ count: Int) {
        for sample in 0..<count {
            continuation.yield(sample)  // SITE: yields nobody receives
        }
    }

    func stop() {
        continuation.finish()
    }
}

/// The correct idioms: one producer that finishes once, one consumer, one resume.
func correctStreamIdioms() async -> (sum: Int, pages: [String], temperature: Int) {
    let (numbers, continuation) = AsyncStream.makeStream(of: Int.self)
    continuation.yield(1)
    continuation.yield(2)
    continuation.finish()
    var sum = 0
    for await number in numbers { sum += number }
    let (pages, pageContinuation) = AsyncThrowingStream.makeStream(of: String.self)
    pageContinuation.yield("first")
    pageContinuation.finish()
    var read: [String] = []
    do {
        for try await page in pages { read.append(page) }
    } catch {}
    let temperature = await withCheckedContinuation { continuation in
        continuation.resume(returning: 20)
    }
    return (sum, read, temperature)
}
