import ConcurrencyDiagnostics
import Foundation
import Testing

/// Each finding of `.diagnosed()` on an async sequence, provoked by real Swift Concurrency code.
@Suite struct SequenceFindingTests {
    @Test func anIterationThatNeverEndsIsALeakAtItsLoop() async throws {
        let engine = makeEngine()
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let outcome = await runTest(engine) {
            let updates = stream.diagnosed("updates", engine: engine)
            Task { _ = await countElements(of: updates) }  // nobody finishes the stream or cancels the task
            continuation.yield(1)
            await waitForIterations(1, in: engine)
        }
        continuation.finish()
        let finding = onlyFinding(outcome, .leakedSubscription)
        expectEvidence(
            finding, engine, kind: .leakedSubscription, label: "updates", outcome: outcome, function: "countElements")
        #expect(finding?.details["relatedStackRole"] == "sequence diagnosed")
        expectStack(engine, finding?.relatedStack ?? .none, contains: "anIterationThatNeverEndsIsALeakAtItsLoop")
    }

    @Test func twoTasksIteratingOneDiagnosedStreamAreFound() async throws {
        let engine = makeEngine()
        let outcome = await runTest(engine) {
            let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
            let events = stream.diagnosed("events", engine: engine)
            async let first = countElements(of: events)
            async let second = countElements(of: events)
            await waitForIterations(2, in: engine)
            for event in 1...4 {
                continuation.yield(event)
            }
            continuation.finish()
            #expect(await first + second == 4)
        }
        let finding = onlyFinding(outcome, .concurrentIteration)
        expectEvidence(
            finding, engine, kind: .concurrentIteration, label: "events", outcome: outcome, function: "countElements")
        #expect(finding?.relatedStack.isCaptured == true)
    }

    @Test func nextAfterTheEndIsFound() async throws {
        let engine = makeEngine()
        let outcome = await runTest(engine) {
            let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
            continuation.yield(1)
            continuation.finish()
            var iterator = stream.diagnosed("polled", engine: engine).makeAsyncIterator()
            #expect(await iterator.next() == 1)
            #expect(await iterator.next() == nil)
            #expect(await iterator.next() == nil)  // polling a finished sequence: a spinning loop
        }
        let finding = onlyFinding(outcome, .requestAfterTermination)
        expectEvidence(finding, engine, kind: .requestAfterTermination, label: "polled", outcome: outcome)
        #expect(finding?.severity == .warning)
    }

    @Test func elementsReceivedOffTheMainActorAreFound() async throws {
        let engine = makeEngine()
        let outcome = await runTest(engine) {
            let (stream, continuation) = AsyncStream.makeStream(of: String.self)
            continuation.yield("headline")
            continuation.finish()
            let headlines = stream.diagnosed("headlines", expecting: .mainQueue, engine: engine)
            // A detached loop that updates "the UI": it receives off the main actor.
            let loop = Task.detached { await countElements(of: headlines) }
            #expect(await loop.value == 1)
        }
        let findings = outcome.findings.filter { $0.kind == .wrongThread }
        #expect(
            findings.map { $0.details["event"] } == ["value", "finished"],
            "the element and the end, both received off main")
        // A detached task has no test: the iteration carries the one that diagnosed the sequence.
        expectEvidence(
            findings.first, engine, kind: .wrongThread, label: "headlines", outcome: outcome, function: "countElements")
    }

    @Test func aSequenceThatEndsTooEarlyBreaksItsContract() async throws {
        let engine = makeEngine()
        let outcome = await runTest(engine) {
            let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
            continuation.finish()
            #expect(await countElements(of: stream.diagnosed("profile", contract: .single, engine: engine)) == 0)
        }
        let finding = onlyFinding(outcome, .contractViolation)
        expectEvidence(
            finding, engine, kind: .contractViolation, label: "profile", outcome: outcome, function: "countElements")
        #expect(finding?.details["rule"] == "values")
    }
}
