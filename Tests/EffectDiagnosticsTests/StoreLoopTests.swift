import Dispatch
import EffectDiagnostics
import Foundation
@_spi(Integration) import ReactiveDiagnostics
import Testing

/// A realistic store/effect loop: effects on background queues, actions back on the main queue.
@Suite("A store and its effects")
struct StoreLoopTests {
    @Test func aStoreWhoseEffectsHopBackToTheMainQueueProducesNoFindings() async {
        let engine = makeEngine()
        let store = FeedStore(api: FeedAPI(), engine: engine)
        let outcome = await runAsyncTest(engine) {
            await MainActor.run { store.send(.refresh) }
            await eventually { store.state.items == ["swift", "combine", "rx"] }
            await MainActor.run { store.send(.select(1)) }
            await eventually { store.state.detail != nil }
            await MainActor.run { store.send(.refresh) }
            await eventually { !store.state.isLoading }
        }
        #expect(outcome.findings.isEmpty, "\(outcome.findings.map { engine.describe($0) })")
        let state = await MainActor.run { store.state }
        #expect(state.selected == 1 && state.detail == "detail of combine")
        #expect(
            state.appliedOnMainQueue == Array(repeating: true, count: 6),
            "refresh, loaded, select, detailLoaded, refresh, loaded")
        #expect(engine.ledger.registeredCount(of: .callback) == 3)
        #expect(engine.ledger.liveCount(of: .callback) == 0)
        #expect(engine.ledger.liveCount == 0)
    }

    @Test func anEffectThatForgetsToHopMutatesTheStoreOffTheMainQueue() async throws {
        let engine = makeEngine()
        var api = FeedAPI()
        api.forgetsToHopToMain = true
        let store = FeedStore(api: api, engine: engine)
        let outcome = await runAsyncTest(engine) {
            await MainActor.run { store.send(.refresh) }
            await eventually { store.state.appliedOnMainQueue.count == 2 }
        }
        let finding = try onlyFinding(outcome, .wrongThread)
        expectEvidence(engine, finding, kind: .wrongThread, label: "load feed", test: outcome.test)
        expectStack(engine, finding.allocationStack, contains: "FeedStore.send")
        #expect(finding.thread?.isMainQueue == false)
        #expect(outcome.findings.count == 1)
        #expect(await MainActor.run { store.state.appliedOnMainQueue } == [true, false])
    }
}
