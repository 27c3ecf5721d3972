@_spi(Integration) import ReactiveDiagnostics
import ConcurrencyDiagnostics
import Dispatch
import Foundation
import OpenCombineShim
import Testing

/// A sequence every iteration of which starts over: iterating it from two tasks at once is fine.
struct Countdown: AsyncSequence, Sendable {
    let from: Int

    struct AsyncIterator: AsyncIteratorProtocol {
        var next: Int
        mutating func next() async -> Int? {
            guard next > 0 else { return nil }
            defer { next -= 1 }
            await Task.yield()
            return next
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(next: from)
    }
}

/// A subject the test shares with the task that sends on it (OpenCombine's types are not
/// `Sendable`; a subject is safe to send on from one task while another one receives).
struct UncheckedSubject<Subject>: @unchecked Sendable {
    let value: Subject

    init(_ value: Subject) {
        self.value = value
    }
}

/// Correct Swift Concurrency code, diagnosed: no finding at all.
@Suite struct FalsePositiveTests {
    @Test func aFinishedStreamConsumedByATask() async {
        let engine = makePatientEngine()
        let outcome = await runTest(engine) {
            let (prices, feed) = AsyncStream.makeDiagnosedStream(
                "prices", of: Int.self, contract: .init(values: 3...3, termination: .required), engine: engine)
            let model = TickerModel(prices: prices)
            let task = model.startCancellable()
            for price in [1, 2, 3] {
                feed.yield(price)
                try? await Task.sleep(for: .milliseconds(2))  // the loop waits between prices
            }
            feed.finish()
            await task.value
            #expect(model.price == 3)
        }
        expectNoFindings(outcome, engine)
    }

    @Test func aLoopWhoseTaskIsCancelled() async {
        let engine = makePatientEngine()
        let outcome = await runTest(engine) {
            let (prices, feed) = AsyncStream.makeDiagnosedStream("prices", of: Int.self, engine: engine)
            let model = TickerModel(prices: prices)
            let task = model.startCancellable()
            feed.yield(1)
            await eventually("the price is shown") { model.price == 1 }
            task.cancel()  // the fix of the classic leak
            await task.value
        }
        expectNoFindings(outcome, engine)
    }

    @Test func aDiagnosedSequenceIteratedToItsEndAndCancelled() async {
        let engine = makePatientEngine()
        let outcome = await runTest(engine) {
            let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
            let updates = stream.diagnosed("updates", contract: .init(termination: .required), engine: engine)
            let consumer = Task { await countElements(of: updates) }
            continuation.yield(1)
            try? await Task.sleep(for: .milliseconds(10))
            consumer.cancel()
            _ = await consumer.value
            let (finite, feed) = AsyncStream.makeStream(of: Int.self)
            feed.yield(1)
            feed.finish()
            #expect(await countElements(of: finite.diagnosed("finite", engine: engine)) == 1)
        }
        expectNoFindings(outcome, engine)
    }

    @Test func forAwaitWithBreak() async {
        let engine = makePatientEngine()
        let outcome = await runTest(engine) {
            let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
            for value in 1...5 {
                continuation.yield(value)
            }
            for await value in stream.diagnosed("first even", engine: engine) where value % 2 == 0 {
                #expect(value == 2)
                break  // the iterator is released: the iteration ends
            }
            let (plain, feed) = AsyncStream.makeDiagnosedStream("first", of: Int.self, engine: engine)
            feed.yield(1)
            feed.yield(2)
            for await value in plain {
                #expect(value == 1)
                break
            }
            continuation.finish()
        }
        expectNoFindings(outcome, engine)
    }

    @Test func makeStreamTwinsAndTheirConsumersOneAfterTheOther() async throws {
        let engine = makePatientEngine()
        let outcome = try await runTest(engine) {
            let (stream, continuation) = AsyncStream.makeDiagnosedStream("handoff", of: Int.self, engine: engine)
            continuation.yield(1)
            continuation.yield(2)
            continuation.finish()
            // Two consumers, one after the other: not concurrent iteration.
            let first = await Task { () -> Int? in
                for await value in stream { return value }
                return nil
            }.value
            let second = await Task { await countElements(of: stream) }.value
            #expect(first == 1 && second == 1)

            let lines = AsyncThrowingStream<String, any Error>.diagnosed("lines", engine: engine) { continuation in
                continuation.yield("a")
                continuation.yield("b")
                continuation.finish()
            }
            let read = try await readPages(lines)
            #expect(read == ["a", "b"])
            let ticks = AsyncStream<Void>.diagnosed("ticks", bufferingPolicy: .bufferingNewest(1), engine: engine) {
                continuation in
                continuation.yield()
                continuation.yield()  // replaces the first: dropped, not an error
                continuation.finish()
            }
            #expect(await countElements(of: ticks) == 1)
        }
        expectNoFindings(outcome, engine)
    }

    @Test func aMultiPassSequenceIteratedByTwoTasksAtOnce() async {
        let engine = makePatientEngine()
        let outcome = await runTest(engine) {
            let countdown = Countdown(from: 20).diagnosed("countdown", engine: engine)
            async let first = countElements(of: countdown)
            async let second = countElements(of: countdown)
            #expect(await first + second == 40)
        }
        expectNoFindings(outcome, engine)
    }

    @Test func taskGroupsAndDiagnosedTasks() async {
        let engine = makePatientEngine()
        let outcome = await runTest(engine) {
            let sum = await withTaskGroup(of: Int.self) { group in
                for value in 1...10 {
                    group.addDiagnosedTask("part \(value)", engine: engine) { value }
                }
                return await group.reduce(0, +)
            }
            #expect(sum == 55)
            let throwing = try? await withThrowingTaskGroup(of: Int.self) { group in
                group.addDiagnosedTask("may fail", engine: engine) { throw CancellationError() }
                return try await group.reduce(0, +)
            }
            #expect(throwing == nil)
            let task = Task.diagnosed("finishes", engine: engine) { 42 }
            #expect(await task.value == 42)
            let failing = Task<Int, any Error>.diagnosed("fails", engine: engine) { throw CancellationError() }
            #expect(await (try? failing.value) == nil)
            let cancelled = Task.diagnosed("cancelled", engine: engine) { try? await Task.sleep(for: .seconds(60)) }
            cancelled.cancel()
            await cancelled.value
        }
        expectNoFindings(outcome, engine)
    }

    @Test func continuationsResumedOnceWhereExpected() async throws {
        let engine = makePatientEngine()
        let api = SettingsAPI()
        let outcome = try await runTest(engine) {
            async let settings = loadSettings(from: api, engine: engine)
            await eventually("the load is waiting") { api.waiting == 1 }
            api.respond("dark")
            #expect(await settings == "dark")
            let main: Int = try await withDiagnosedThrowingContinuation("main", expecting: .mainQueue, engine: engine) {
                continuation in
                DispatchQueue.main.async { continuation.resume(returning: 1) }
            }
            #expect(main == 1)
            await withDiagnosedContinuation("void", engine: engine) { continuation in continuation.resume() }
        }
        expectNoFindings(outcome, engine)
    }

    @Test func publisherValuesBridgedIntoASequence() async {
        let engine = makePatientEngine()
        let outcome = await runTest(engine) {
            let headlines = ["Swift 6.3 released", "Concurrency checked"].publisher
            var received: [String] = []
            for await headline in headlines.values.diagnosed(
                "headlines", contract: .init(values: 2...2, termination: .required), engine: engine)
            {
                received.append(headline)
            }
            #expect(received.count == 2)
            let subject = UncheckedSubject(PassthroughSubject<Int, Never>())
            let sender = Task {
                try? await Task.sleep(for: .milliseconds(20))
                subject.value.send(1)
                subject.value.send(completion: .finished)
            }
            var count = 0
            for await _ in subject.value.values.diagnosed("subject", engine: engine) {
                count += 1
            }
            await sender.value
            #expect(count <= 1)
        }
        expectNoFindings(outcome, engine)
    }

    @Test func executorsRunningNormally() async {
        let engine = makePatientEngine()
        let outcome = await runTest(engine) {
            let executor = DiagnosticSerialExecutor("ledger", engine: engine)
            let ledger = Ledger(executor: executor)
            let (stream, continuation) = AsyncStream.makeDiagnosedStream(
                "entries", of: Int.self, expecting: .executor(executor), engine: engine)
            await ledger.feed(continuation)
            #expect(await countElements(of: stream) == 3)
            let pool = DiagnosticTaskExecutor("pool", engine: engine)
            let values = await withTaskExecutorPreference(pool) {
                async let one = Task.detached { 1 }.value
                return await one
            }
            #expect(values == 1)
        }
        expectNoFindings(outcome, engine)
    }
}

extension Ledger {
    /// Yields entries from the actor, as its contract expects.
    func feed(_ continuation: AsyncStream<Int>.DiagnosedContinuation) {
        for entry in 1...3 {
            continuation.yield(entry)
        }
        continuation.finish()
    }
}

/// With the engine disabled (`REACTIVE_DIAGNOSTICS_ENABLED=0`), everything forwards and nothing
/// is tracked or reported.
@Suite struct DisabledEngineTests {
    @Test func aDisabledEngineChecksNothingAndForwardsEverything() async throws {
        let engine = makeEngine { $0.isEnabled = false }
        // Never finished while the test runs; finished after it, so the two tasks reading it end
        // (LeakSanitizer in Tools/test.sh would see them and all they hold at exit).
        let (plain, feed) = AsyncStream.makeStream(of: Int.self)
        defer { feed.finish() }
        let outcome = await runTest(engine) {
            let (stream, continuation) = AsyncStream.makeDiagnosedStream(
                "quotes", of: Int.self, contract: .single, engine: engine)
            continuation.yield(1)
            continuation.yield(2)
            continuation.finish()
            continuation.yield(3)  // after finish: dropped, not reported
            continuation.finish()
            #expect(await countElements(of: stream) == 2)
            feed.yield(1)
            Task { _ = await countElements(of: plain.diagnosed("never finished", engine: engine)) }
            Task.diagnosed("never ends", engine: engine) { _ = await countElements(of: plain) }
            let value = await withDiagnosedContinuation("twice", engine: engine) { continuation in
                continuation.resume(returning: 1)
                continuation.resume(returning: 2)  // still dropped: never a crash
            }
            #expect(value == 1)
            try? await Task.sleep(for: .milliseconds(20))
        }
        #expect(outcome.findings.isEmpty)
        #expect(engine.ledger.liveCount == 0 && engine.findingCount == 0)
    }
}
