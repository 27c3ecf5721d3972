import ConcurrencyDiagnostics
import Foundation
import Testing

/// Each finding of diagnosed streams, provoked by real Swift Concurrency code.
@Suite struct StreamFindingTests {
    @Test func aLoopOnAStreamNeverFinishedIsALeakWithBothSites() async throws {
        let engine = makeEngine()
        let outcome = await runTest(engine) {
            let (prices, feed) = AsyncStream.makeDiagnosedStream("prices", of: Int.self, engine: engine)
            let model = TickerModel(prices: prices)          // the app's code takes a plain AsyncStream<Int>
            model.start()
            feed.yield(101)
            await eventually("the model shows the price") { model.price == 101 }
        }
        let finding = onlyFinding(outcome, .leakedSubscription)
        expectEvidence(finding, engine, kind: .leakedSubscription, label: "prices", outcome: outcome, function: "TickerModel.start")
        let leak = try #require(finding)
        #expect(leak.resourceKind == .iteration)
        #expect(leak.details["relatedStackRole"] == "stream created")
        expectStack(engine, leak.relatedStack)   // where the test made the stream
        print(engine.describe(leak))
    }
}
