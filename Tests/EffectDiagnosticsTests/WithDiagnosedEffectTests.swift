import EffectDiagnostics
import Foundation
@_spi(Integration) import ReactiveDiagnostics
import Testing

/// `async` functions wrapped where the store awaits them.
@Suite("withDiagnosedEffect: async functions")
struct WithDiagnosedEffectTests {
    @Test func anOperationStillSuspendedAtTheCheckpointWasNeverCalledBack() async throws {
        let engine = makeEngine()
        let (renewals, authServer) = AsyncStream<Void>.makeStream()
        var refresh: Task<Void, Never>?
        let outcome = await runAsyncTest(engine) {
            refresh = Task {
                await withDiagnosedEffect("refresh token", engine: engine) {
                    for await _ in renewals {}
                }
            }
            await eventually { engine.ledger.liveCount(of: .callback) == 1 }
        }
        let finding = try onlyFinding(outcome, .callbackNeverCalled)
        expectEvidence(engine, finding, kind: .callbackNeverCalled, label: "refresh token", test: outcome.test)
        authServer.finish()
        await refresh?.value
        #expect(engine.ledger.liveCount(of: .callback) == 0)
        #expect(engine.findings().count == 1)
    }

    @Test func anOperationThatReturnsEndsTheEffect() async {
        let engine = makeEngine()
        let outcome = await runAsyncTest(engine) {
            let detail = await withDiagnosedEffect("load detail", engine: engine) { await FeedAPI().detail(1) }
            #expect(detail == "detail of combine")
        }
        #expect(outcome.findings.isEmpty)
        #expect(engine.ledger.registeredCount(of: .callback) == 1 && engine.ledger.liveCount(of: .callback) == 0)
    }

    @Test func aResultArrivingOffTheMainQueueIsAWrongThread() async throws {
        let engine = makeEngine()
        let outcome = await runAsyncTest(engine) {
            // A nonisolated caller: the result lands on the cooperative pool, not the main queue.
            let count = await withDiagnosedEffect("count unread", expecting: .mainQueue, engine: engine) {
                await Task.yield()
                return 3
            }
            #expect(count == 3)
        }
        let finding = try onlyFinding(outcome, .wrongThread)
        expectEvidence(engine, finding, kind: .wrongThread, label: "count unread", test: outcome.test)
        #expect(
            finding.message.hasPrefix(
                "effect 'count unread' returned its result on the wrong thread: expected the main queue"))
        #expect(outcome.findings.count == 1)
    }

    @Test func onTheMainActorTheResultArrivesOnTheMainQueue() async {
        let engine = makeEngine()
        let outcome = await runAsyncTest(engine) {
            let count = await Task { @MainActor in
                await withDiagnosedEffect("count unread", expecting: .mainQueue, engine: engine) {
                    try? await Task.sleep(for: .milliseconds(5))
                    return 3
                }
            }.value
            #expect(count == 3)
        }
        #expect(outcome.findings.isEmpty)
        #expect(engine.ledger.liveCount(of: .callback) == 0)
    }

    @Test func aThrowingOrCancelledOperationEndsTheEffect() async {
        let engine = makeEngine()
        let outcome = await runAsyncTest(engine) {
            await #expect(throws: Boom.self) {
                try await withDiagnosedEffect("upload", engine: engine) { () async throws(Boom) -> Int in throw Boom() }
            }
            let sleeper = Task {
                try await withDiagnosedEffect("poll", engine: engine) { try await Task.sleep(for: .seconds(60)) }
            }
            await eventually { engine.ledger.liveCount(of: .callback) == 1 }
            sleeper.cancel()
            let result = await sleeper.result
            #expect(throws: CancellationError.self) { try result.get() }
        }
        #expect(outcome.findings.isEmpty)
        #expect(engine.ledger.registeredCount(of: .callback) == 2 && engine.ledger.liveCount(of: .callback) == 0)
    }
}
