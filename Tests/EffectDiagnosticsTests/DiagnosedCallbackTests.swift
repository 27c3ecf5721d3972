import Dispatch
import EffectDiagnostics
import Foundation
@_spi(Integration) import ReactiveDiagnostics
import Testing

/// The function form: a completion handler checked for exactly one call on the right thread.
@Suite("diagnosedCallback: completion handlers")
struct DiagnosedCallbackTests {
    /// An uploader with a classic bug: it reports success, then its retry path reports again.
    struct Uploader: Sendable {
        let queue = DispatchQueue(label: "Uploader")

        func upload(_ data: [UInt8], completion: @escaping @Sendable (Bool) -> Void) {
            queue.async {
                completion(true)
                retry(completion)
            }
        }

        func retry(_ completion: @Sendable (Bool) -> Void) {
            completion(true)
        }

        /// Waits until the work submitted so far has run.
        func drain() {
            queue.sync {}
        }
    }

    @Test func aCompletionHandlerCalledTwiceIsReported() throws {
        let engine = makeEngine()
        let results = Recorder<Bool>()
        let uploader = Uploader()
        let outcome = runTest(engine) {
            let completion = diagnosedCallback("upload", engine: engine) { (ok: Bool) in results.append(ok) }
            uploader.upload([1, 2, 3], completion: completion)
            uploader.drain()
        }
        let finding = try onlyFinding(outcome, .callbackCalledTwice)
        expectEvidence(engine, finding, kind: .callbackCalledTwice, label: "upload", test: outcome.test)
        expectStack(engine, finding.eventStack, contains: "Uploader.retry")
        #expect(finding.thread?.isMainQueue == false)
        #expect(results.all == [true, true])
        #expect(outcome.findings.count == 1)
    }

    @Test func aCompletionHandlerReleasedUncalledIsReported() throws {
        let engine = makeEngine()
        let outcome = runTest(engine) {
            let completion = diagnosedCallback("validate", engine: engine) { (_: Bool) in }
            let input = ""
            if !input.isEmpty {  // the bug: the empty-input path never completes
                completion(true)
            }
        }
        let finding = try onlyFinding(outcome, .callbackNeverCalled)
        expectEvidence(engine, finding, kind: .callbackNeverCalled, label: "validate", test: outcome.test)
        #expect(finding.details["reason"] == "released")
        #expect(outcome.findings.count == 1)
    }

    @Test func aCompletionHandlerCalledOffTheMainQueueIsAWrongThread() throws {
        let engine = makeEngine()
        let uploader = Uploader()
        let outcome = runTest(engine) {
            let completion = diagnosedCallback("avatar", expecting: .mainQueue, engine: engine) { (_: Bool) in }
            uploader.queue.async { completion(true) }
            uploader.drain()
        }
        let finding = try onlyFinding(outcome, .wrongThread)
        expectEvidence(engine, finding, kind: .wrongThread, label: "avatar", test: outcome.test)
        #expect(finding.thread?.isMainQueue == false)
        #expect(outcome.findings.count == 1)
    }

    @Test func aCompletionHandlerCalledOnceOnTheMainQueueIsClean() async {
        let engine = makeEngine()
        let results = Recorder<Bool>()
        let uploader = Uploader()
        let outcome = await runAsyncTest(engine) {
            let completion = diagnosedCallback("avatar", expecting: .mainQueue, engine: engine) { (ok: Bool) in
                results.append(ok)
            }
            uploader.queue.async {
                DispatchQueue.main.async { completion(true) }
            }
            await eventually { results.count == 1 }
        }
        #expect(outcome.findings.isEmpty)
        #expect(engine.ledger.registeredCount(of: .callback) == 1 && engine.ledger.liveCount(of: .callback) == 0)
    }
}
