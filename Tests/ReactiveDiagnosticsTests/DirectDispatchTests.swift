import Dispatch
import Foundation
import Testing
import _ReactiveDiagnosticsSupport
@_spi(Integration) @_spi(Testing) @testable import ReactiveDiagnostics

/// Actions handed to a queue's libdispatch object as they are (`dispatch_async_f`), with no
/// block made for each: they must run where, when and as often as `DispatchQueue.async` would
/// run them, and be let go after.
@Suite("Direct dispatch")
struct DirectDispatchTests {
    final class Token: Sendable {}

    @Test func aQueuesLibdispatchObjectIsFoundOnThisPlatform() throws {
        // The check compares the word read from a queue of our own with the queue libdispatch
        // says runs a block submitted to it: it fails (nil) rather than guess.
        #expect(DirectDispatch.objectOffset != nil)
        let queue = DispatchQueue(label: "direct-dispatch-tests.found")
        let direct = try #require(DirectDispatch(queue))
        #expect(direct.queue === queue)
    }

    @Test func actionsRunOnTheQueueInOrderOnceEachAndAreLetGoAfter() throws {
        let engine = makeEngine()
        let probe = engine.makeSchedulerProbe(label: "direct", expectation: .offMainQueue, fixedQueue: true)
        let queue = DispatchQueue(label: "direct-dispatch-tests.order")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 7)
        let direct = try #require(DirectDispatch(queue))
        let runs = LockedValue((order: [Int](), offQueue: 0))
        let tokens = LockedValue([Int: WeakToken]())
        for index in 0..<2_000 {
            let token = Token()
            tokens.withLock { $0[index] = WeakToken(token) }
            direct.async(
                probe.willSchedule { [token] in
                    withExtendedLifetime(token) {
                        runs.withLock { runs in
                            runs.order.append(index)
                            if DispatchQueue.getSpecific(key: key) != 7 { runs.offQueue += 1 }
                        }
                    }
                })
        }
        queue.sync {}
        let result = runs.withLock { $0 }
        #expect(result.order == Array(0..<2_000), "every action once, in the order scheduled")
        #expect(result.offQueue == 0, "every action on the queue itself")
        #expect(
            tokens.withLock { $0.values.allSatisfy { $0.token == nil } }, "each action's work released after its run")
        let summary = probe.summary()
        #expect(summary.scheduled == 2_000 && summary.executed == 2_000 && summary.pending == 0)
        #expect(summary.threadViolations == 0)
    }

    /// Handed over on the main queue too: its actions run there, and meet a main-queue rule.
    @Test func theMainQueueIsFoundToo() throws {
        let engine = makeEngine()
        let probe = engine.makeSchedulerProbe(label: "main", expectation: .mainQueue, fixedQueue: true)
        let direct = try #require(DirectDispatch(.main))
        let ran = DispatchSemaphore(value: 0)
        let onMain = LockedValue(false)
        direct.async(
            probe.willSchedule {
                onMain.withLock { $0 = MainQueue.isCurrent }
                ran.signal()
            })
        #expect(ran.wait(timeout: .now() + 30) == .success)
        #expect(onMain.withLock { $0 } && probe.summary().threadViolations == 0)
    }

    struct WeakToken: @unchecked Sendable {
        weak var token: Token?
        init(_ token: Token) { self.token = token }
    }
}
