import ConcurrencyDiagnostics
import Foundation
import Testing

/// Each finding of diagnosed streams (`AsyncStream.makeDiagnosedStream` and
/// `AsyncThrowingStream.makeDiagnosedStream`), provoked by real Swift Concurrency code.
@Suite struct StreamFindingTests {
    @Test func aLoopOnAStreamNeverFinishedIsALeakWithBothSites() async throws {
        let engine = makeEngine()
        let (prices, feed) = AsyncStream.makeDiagnosedStream("prices", of: Int.self, engine: engine)
        let outcome = await runTest(engine) {
            let model = TickerModel(prices: prices)  // the app's code takes a plain AsyncStream<Int>
            model.start()  // Task { for await price in prices { self.update(price) } }
            feed.yield(101)
            await eventually("the model shows the price") { model.price == 101 }
            await waitForIterations(1, in: engine)  // the loop waits for the next price
        }
        feed.finish()
        let finding = onlyFinding(outcome, .leakedSubscription)
        // Allocated where it is iterated: the app's loop, through the chain of async callers.
        expectEvidence(
            finding, engine, kind: .leakedSubscription, label: "prices", outcome: outcome, function: "TickerModel.start"
        )
        let leak = try #require(finding)
        #expect(leak.resourceKind == .iteration)
        #expect(leak.details["relatedStackRole"] == "stream created")
        expectStack(engine, leak.relatedStack, contains: "aLoopOnAStreamNeverFinishedIsALeakWithBothSites")
        #expect(engine.describe(leak).contains("  stream created at:\n"))
    }

    @Test func aValueYieldedAfterFinishIsFound() async throws {
        let engine = makeEngine()
        let received = Box<[Int]>([])
        let outcome = await runTest(engine) {
            let (stream, continuation) = AsyncStream.makeDiagnosedStream("quotes", of: Int.self, engine: engine)
            continuation.yield(1)
            continuation.finish()
            let result = continuation.yield(2)  // dropped by AsyncStream without a word
            #expect({ if case .terminated = result { true } else { false } }())
            for await quote in stream {
                received.mutate { $0.append(quote) }
            }
        }
        #expect(received.value == [1])
        let finding = onlyFinding(outcome, .valueAfterTermination)
        expectEvidence(finding, engine, kind: .valueAfterTermination, label: "quotes", outcome: outcome)
        #expect(finding?.eventStack.isCaptured == true)
    }

    @Test func finishingTwiceIsFound() async throws {
        let engine = makeEngine()
        let outcome = await runTest(engine) {
            let (pages, loader) = AsyncThrowingStream.makeDiagnosedStream("pages", of: String.self, engine: engine)
            loader.yield("page 1")
            loader.finish(throwing: CancellationError())
            loader.finish()
            await #expect(throws: CancellationError.self) { _ = try await readPages(pages) }
        }
        let finding = onlyFinding(outcome, .duplicateTermination)
        expectEvidence(finding, engine, kind: .duplicateTermination, label: "pages", outcome: outcome)
        #expect(finding?.details["state"] == "failed")
    }

    @Test func twoTasksIteratingOneStreamAreFound() async throws {
        let engine = makeEngine()
        let outcome = await runTest(engine) {
            let (stream, continuation) = AsyncStream.makeDiagnosedStream("events", of: Int.self, engine: engine)
            let first = Task { await countElements(of: stream) }
            let second = Task { await countElements(of: stream) }
            await waitForIterations(2, in: engine)  // both loops wait: two consumers of one AsyncStream
            for event in 1...4 {
                continuation.yield(event)
            }
            continuation.finish()
            let total = await first.value + second.value
            #expect(total == 4, "each element went to one of the two loops")
        }
        let finding = onlyFinding(outcome, .concurrentIteration)
        expectEvidence(
            finding, engine, kind: .concurrentIteration, label: "events", outcome: outcome, function: "countElements")
        #expect(finding?.relatedStack.isCaptured == true, "the other loop's stack")
        #expect(finding?.details["relatedStackRole"] == "other iteration")
    }

    /// Two loops that start at the same moment: the finding names the other loop's stack
    /// every time (the count of waiting consumers and the first one's stack are one word).
    @Test func twoLoopsStartingAtOnceAlwaysNameEachOther() async throws {
        let engine = makeEngine()
        let rounds = 60
        let outcome = await runTest(engine) {
            for round in 0..<rounds {
                let (stream, continuation) = AsyncStream.makeDiagnosedStream(
                    "round \(round)", of: Int.self, engine: engine)
                async let first = countElements(of: stream)
                async let second = countElements(of: stream)
                await eventually("round \(round): both loops wait") {
                    engine.findings().contains { $0.label == "round \(round)" }
                }
                continuation.finish()
                _ = await first + second
            }
        }
        let findings = outcome.findings.filter { $0.kind == .concurrentIteration }
        #expect(findings.count == rounds)
        let withoutTheOther = findings.filter { !$0.relatedStack.isCaptured }.count
        #expect(withoutTheOther == 0, "\(withoutTheOther) of \(rounds) findings lack the other loop's stack")
    }

    @Test func aValueAfterTheConsumerWasCancelledIsInformation() async throws {
        let engine = makeEngine()
        let outcome = await runTest(engine) {
            let (stream, continuation) = AsyncStream.makeDiagnosedStream("ticks", of: Int.self, engine: engine)
            let consumer = Task { await countElements(of: stream) }
            try? await Task.sleep(for: .milliseconds(20))
            consumer.cancel()  // the stream terminates: its consumer went away
            _ = await consumer.value
            continuation.yield(1)  // a producer that keeps going
            continuation.yield(2)
        }
        let finding = onlyFinding(outcome, .valueAfterCancel)
        expectEvidence(finding, engine, kind: .valueAfterCancel, label: "ticks", outcome: outcome)
        #expect(finding?.severity == .info && finding?.failsTest == false)
        #expect(outcome.failures.isEmpty)
    }

    @Test func moreValuesThanTheContractAllowsAreFound() async throws {
        let engine = makeEngine()
        let outcome = await runTest(engine) {
            let (stream, continuation) = AsyncStream.makeDiagnosedStream(
                "profile", of: String.self, contract: .single, engine: engine)
            continuation.yield("first")
            continuation.yield("second")
            continuation.finish()
            #expect(await countElements(of: stream) == 2)
        }
        let finding = onlyFinding(outcome, .contractViolation)
        expectEvidence(finding, engine, kind: .contractViolation, label: "profile", outcome: outcome)
        #expect(finding?.details["rule"] == "values")
    }

    @Test func aFailureTheContractDoesNotAllowIsFound() async throws {
        let engine = makeEngine()
        let outcome = await runTest(engine) {
            let (pages, loader) = AsyncThrowingStream.makeDiagnosedStream(
                "pages", of: String.self, contract: StreamContract(allowsFailure: false), engine: engine)
            loader.yield("page 1")
            loader.finish(throwing: URLError(.notConnectedToInternet))
            await #expect(throws: URLError.self) { _ = try await readPages(pages) }
        }
        let finding = onlyFinding(outcome, .contractViolation)
        expectEvidence(finding, engine, kind: .contractViolation, label: "pages", outcome: outcome)
        #expect(finding?.details["rule"] == "failure")
    }

    @Test func aValueYieldedOffTheExpectedThreadIsFound() async throws {
        let engine = makeEngine()
        let outcome = await runTest(engine) {
            let (stream, continuation) = AsyncStream.makeDiagnosedStream(
                "ui events", of: Int.self, expecting: .mainQueue, engine: engine)
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async {
                    continuation.yield(1)  // not on the main queue
                    continuation.finish()
                    done.resume()
                }
            }
            #expect(await countElements(of: stream) == 1)
        }
        let findings = outcome.findings.filter { $0.kind == .wrongThread }
        #expect(
            findings.map { $0.details["event"] } == ["value", "finished"], "the yield and the finish, both off main")
        expectEvidence(findings.first, engine, kind: .wrongThread, label: "ui events", outcome: outcome)
        #expect(findings.first?.details["expected"] == "main queue")
    }
}
