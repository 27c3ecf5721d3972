@_spi(Integration) import ReactiveDiagnostics
import Dispatch
import Foundation
import Synchronization
import Testing
import _ReactiveDiagnosticsSupport
#if canImport(Glibc)
import Glibc
#endif
@testable import ReactiveDiagnostics

/// Scheduled actions kept in the lanes of the threads that schedule them: checkpoints find the
/// pending ones there, the ledger's counts include them, and an action is filled again only
/// once it ended and nothing else refers to it.
@Suite("Action lanes")
struct ActionLaneTests {
    @Test func aWarmSchedulerFillsItsActionsAgain() {
        let engine = makeEngine { $0.capturesAllocationStacks = false }
        let probe = engine.makeSchedulerProbe(label: "warm")
        let made = LockedValue(0)
        let done = DispatchSemaphore(value: 0)
        // On a thread of its own, whose lane may be one an ended thread left (with other tests'
        // actions in it).
        Thread {
            ActionLane.withCurrentLanePinned {
                // Warm: the cursor has gone round whatever the lane held a few times (it may have
                // been left by an ended thread, with other tests' actions still live or held in it).
                let warmUp = 3 * ActionLane.currentSize + 1_000
                var madeWhenWarm = 0
                for round in 0..<(warmUp + 1_000) {
                    if round == warmUp { madeWhenWarm = ActionLane.currentMade }
                    probe.willSchedule(running: {}).run()
                }
                made.withLock { $0 = ActionLane.currentMade - madeWhenWarm }
                done.signal()
            }
        }.start()
        done.wait()
        // Each action ran and was let go before the next was scheduled: once warm, the lane
        // fills the same few again and again.
        let count = made.withLock { $0 }
        #expect(count == 0, "\(count) actions made for the last 1,000 scheduled one after another")
        #expect(probe.summary().executed >= 2_000 && probe.summary().pending == 0)
        #expect(engine.ledger.liveCount(of: .scheduledAction) == 0)
    }

    @Test func anActionSomeoneKeepsIsNeverFilledAgain() {
        let engine = makeEngine { $0.capturesAllocationStacks = false }
        let probe = engine.makeSchedulerProbe(label: "kept")
        let test = TestIdentity(name: "ActionLaneTests.anActionSomeoneKeepsIsNeverFilledAgain")
        let kept = TestIdentity.$current.withValue(test) { probe.willSchedule(running: {}) }
        kept.run()  // ended, but still referred to here
        for _ in 0..<1_000 {
            let action = probe.willSchedule(running: {})
            #expect(action !== kept)
            action.run()
        }
        #expect(kept.isFinished && kept.test == test, "the kept action was not filled with another's work")
    }

    @Test func pendingActionsAreFoundAndAttributedToTheirTest() {
        let engine = makeEngine()
        let probe = engine.makeSchedulerProbe(label: "pending")
        let test = TestIdentity(name: "ActionLaneTests.pendingActionsAreFoundAndAttributedToTheirTest")
        let pending = TestIdentity.$current.withValue(test) { (0..<3).map { _ in probe.willSchedule(running: {}) } }
        let live = engine.ledger.liveResources(test: test)
        #expect(live.count == 3 && live.allSatisfy { $0.kind == .scheduledAction && $0.label.name == "pending" })
        for resource in live {
            expectStack(engine, resource.stack, startsIn: "pendingActionsAreFoundAndAttributedToTheirTest")
        }
        #expect(Set(live.map(\.token)).count == 3, "each listed with a token of its own")
        pending[0].run()
        probe.didCancel(pending[1])
        #expect(engine.ledger.liveResources(test: test).count == 1)
        pending[2].run()
        #expect(engine.ledger.liveResources(test: test).isEmpty)
    }

    @Test func actionsOfAThreadThatEndedAreStillFound() {
        let engine = makeEngine { $0.capturesAllocationStacks = false }
        let probe = engine.makeSchedulerProbe(label: "orphaned")
        let test = TestIdentity(name: "ActionLaneTests.actionsOfAThreadThatEndedAreStillFound")
        let made = LockedValue([ScheduledAction]())
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            TestIdentity.$current.withValue(test) {
                made.withLock { $0 = (0..<5).map { _ in probe.willSchedule(running: {}) } }
            }
            done.signal()
        }
        thread.start()
        done.wait()
        // The thread may still be ending: its lane is handed to the registry as it does.
        Thread.sleep(forTimeInterval: 0.05)
        #expect(engine.ledger.liveResources(test: test).count == 5)
        for action in made.withLock({ $0 }) { action.run() }
        #expect(engine.ledger.liveResources(test: test).isEmpty)
    }

    @Test func actionsOfAnotherEngineAreNotListed() {
        let first = makeEngine { $0.capturesAllocationStacks = false }
        let second = makeEngine { $0.capturesAllocationStacks = false }
        let action = first.makeSchedulerProbe(label: "first").willSchedule(running: {})
        _ = second.makeSchedulerProbe(label: "second")
        #expect(first.ledger.liveResources().map(\.label.name) == ["first"])
        #expect(second.ledger.liveResources().isEmpty)
        #expect(second.ledger.liveCount(of: .scheduledAction) == 0)
        action.run()
        #expect(first.ledger.liveResources().isEmpty)
    }

    @Test func theLedgerCountsActionsInLanes() {
        let engine = makeEngine { $0.capturesAllocationStacks = false }
        let probe = engine.makeSchedulerProbe(label: "counted")
        let five = (0..<5).map { _ in probe.willSchedule(running: {}) }
        let timer = probe.willSchedule(repeating: true)
        #expect(engine.ledger.liveCount(of: .scheduledAction) == 5 && engine.ledger.liveCount(of: .timer) == 1)
        for action in five.prefix(3) { action.run() }
        #expect(engine.ledger.liveCount(of: .scheduledAction) == 2)
        let two = (0..<2).map { _ in probe.willSchedule(running: {}) }
        #expect(engine.ledger.liveCount(of: .scheduledAction) == 4)
        #expect(engine.ledger.registeredCount(of: .scheduledAction) == 7)
        #expect(engine.ledger.peakCount(of: .scheduledAction) == 5, "the most pending at once")
        probe.didCancel(timer)
        for action in five.suffix(2) + two { action.run() }
        #expect(engine.ledger.liveCount == 0)
        let statistics = engine.ledger.statistics()
        #expect(statistics.kinds.first { $0.kind == .scheduledAction }?.registered == 7)
        #expect(
            statistics.kinds.first { $0.kind == .timer }.map { ($0.registered, $0.peak, $0.live) } ?? (0, 0, 0) == (
                1, 1, 0
            ))
    }

    /// The peak is computed on the scheduling side from the ended count as last read: never
    /// below the true peak, exact below 64 alive, at most 1/64 above it beyond. A model of
    /// what is alive checks it through bursts that run in and out of order and drain.
    @Test func thePeakIsNeverBelowTheTruePeakAndAtMostASixtyFourthAbove() {
        let engine = makeEngine { $0.capturesAllocationStacks = false }
        let probe = engine.makeSchedulerProbe(label: "peaks")
        var generator = SplitMix(seed: 18)
        var alive: [ScheduledAction] = []
        var truePeak = 0
        for round in 0..<400 {
            // Schedule a burst, then run part of what is alive (oldest first, or any).
            let burst = round.isMultiple(of: 50) ? Int(generator.next() % 3_000) : Int(generator.next() % 200)
            for _ in 0..<burst {
                alive.append(probe.willSchedule(running: {}))
                truePeak = max(truePeak, alive.count)
            }
            let runs = Int(generator.next() % UInt64(alive.count + 1))
            for _ in 0..<runs {
                let index = generator.next() % 4 == 0 ? Int(generator.next() % UInt64(alive.count)) : 0
                alive.remove(at: index).run()
            }
            let peak = engine.ledger.peakCount(of: .scheduledAction)
            #expect(peak >= truePeak && peak <= truePeak + truePeak >> 6, "round \(round): \(peak) for \(truePeak)")
            if peak < truePeak || peak > truePeak + truePeak >> 6 { return }
        }
        #expect(truePeak > 1_000, "the bursts built a deep backlog")
        for action in alive { action.run() }
        #expect(engine.ledger.liveCount(of: .scheduledAction) == 0)
    }

    #if canImport(Glibc)
    /// What a lane prefetches before filling an action again is the whole action: the size it
    /// assumes is what the allocator handed out for it (glibc rounds 88 bytes to 88 usable; a
    /// reused free chunk up to 16 bytes larger is handed out whole, as glibc splits off no
    /// remainder under 32 bytes: CI saw one, depending on the heap's state).
    @Test func aLanePrefetchesTheWholeAction() {
        let engine = makeEngine { $0.capturesAllocationStacks = false }
        let action = engine.makeSchedulerProbe(label: "size").willSchedule(running: {})
        let usable = malloc_usable_size(Unmanaged.passUnretained(action).toOpaque())
        #expect(usable >= ScheduledAction.instanceBytes && usable < ScheduledAction.instanceBytes + 32, "\(usable)")
        action.run()
    }
    #endif

    @Test func belowSixtyFourAliveThePeakIsExact() {
        let engine = makeEngine { $0.capturesAllocationStacks = false }
        let probe = engine.makeSchedulerProbe(label: "small")
        for burst in [10, 40, 63, 20] {
            let actions = (0..<burst).map { _ in probe.willSchedule(running: {}) }
            for action in actions { action.run() }
        }
        #expect(engine.ledger.peakCount(of: .scheduledAction) == 63)
    }

    @Test func aLaneGivesBackWhatABurstLeftIt() {
        let engine = makeEngine { $0.capturesAllocationStacks = false }
        let probe = engine.makeSchedulerProbe(label: "burst")
        let done = DispatchSemaphore(value: 0)
        let sizes = LockedValue((burst: 0, after: 0))
        // On a thread of its own, so that no other test schedules in its lane while it runs (the
        // lane may be one an ended thread left, larger than the burst needs).
        Thread {
            ActionLane.withCurrentLanePinned {
                let burst = (0..<8_192).map { _ in probe.willSchedule(running: {}) }
                for action in burst { action.run() }
                let afterBurst = ActionLane.currentSize
                // A quarter given back per two quiet laps: about 8 × its size in takes, and a lap or
                // two before the first.
                for _ in 0..<max(200_000, 12 * afterBurst) { probe.willSchedule(running: {}).run() }
                sizes.withLock { $0 = (afterBurst, ActionLane.currentSize) }
                done.signal()
            }
        }.start()
        done.wait()
        let (burst, after) = sizes.withLock { $0 }
        // The lane grew to hold the burst (a lane an ended thread left may have had places to
        // fill already).
        #expect(burst >= 6_144)
        #expect(
            after <= ActionLane.minimumCapacity * 2, "the lane kept \(after) of the \(burst) actions its burst needed")
        #expect(engine.ledger.liveCount == 0)
    }

    /// A lane whose thread went quiet gives back what a burst left at the second checkpoint,
    /// without its thread scheduling again, and its ended actions give their probes back.
    @Test func aQuietLaneGivesBackWhatABurstLeftIt() {
        let engine = makeEngine { $0.capturesAllocationStacks = false }
        let burstDone = DispatchSemaphore(value: 0)
        let reclaimed = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let sizes = LockedValue((burst: 0, after: 0))
        Thread {
            // In a scope of its own: the probe and the actions are dropped when it ends.
            let afterBurst = { () -> Int in
                let probe = engine.makeSchedulerProbe(label: "quiet")
                let burst = (0..<8_192).map { _ in probe.willSchedule(running: {}) }
                for action in burst { action.run() }
                return ActionLane.currentSize
            }()
            burstDone.signal()
            // Quiet: no action taken until the checkpoints are over.
            reclaimed.wait()
            sizes.withLock { $0 = (afterBurst, ActionLane.currentSize) }
            done.signal()
        }.start()
        burstDone.wait()
        let live = engine.liveSchedulerProbes()
        // Two checkpoints: the first sees the lane took actions, the second finds it quiet.
        for _ in 0..<2 {
            let checkpoint = engine.beginTest(named: "ActionLaneTests.quiet", serial: false)
            _ = engine.finishTest(checkpoint, options: TestOptions(settleTime: .zero))
        }
        reclaimed.signal()
        done.wait()
        let (burst, after) = sizes.withLock { $0 }
        #expect(burst >= 8_192)
        #expect(after == ActionLane.minimumCapacity, "the quiet lane kept \(after) of the \(burst) actions")
        #expect(live == 1)
        #expect(engine.liveSchedulerProbes() == 0)
    }

    /// Filling an action again releases the work a cancelled action still held: a deinit that
    /// schedules from there takes from the lane its own thread is filling, and goes on.
    @Test func aDeinitThatSchedulesWhileItsLaneFillsAnActionGoesOn() {
        final class SchedulesOnDeinit: Sendable {
            let probe: SchedulerProbe
            let ran: LockedValue<Bool>
            init(_ probe: SchedulerProbe, ran: LockedValue<Bool>) {
                self.probe = probe
                self.ran = ran
            }
            deinit {
                probe.willSchedule(running: {}).run()
                ran.withLock { $0 = true }
            }
        }
        let engine = makeEngine { $0.capturesAllocationStacks = false }
        let probe = engine.makeSchedulerProbe(label: "nested")
        let ran = LockedValue(false)
        let done = DispatchSemaphore(value: 0)
        Thread {
            do {
                let owner = SchedulesOnDeinit(probe, ran: ran)
                let action = probe.willSchedule(running: { withExtendedLifetime(owner) {} })
                probe.didCancel(action)
            }
            // Round the lane: the cancelled action is filled again, its work released.
            for _ in 0..<(4 * ActionLane.currentSize) { probe.willSchedule(running: {}).run() }
            done.signal()
        }.start()
        #expect(done.wait(timeout: .now() + 20) == .success)
        #expect(ran.withLock { $0 })
    }

    @Test func aLaneKeepsWhatARepeatedBurstNeeds() {
        let engine = makeEngine { $0.capturesAllocationStacks = false }
        let probe = engine.makeSchedulerProbe(label: "bursts")
        let queue = DispatchQueue(label: "bursts")
        let done = DispatchSemaphore(value: 0)
        let result = LockedValue((size: 0, made: 0))
        // Pinned: what is tested is the lane's own give-back at the start of a lap; the
        // checkpoints of tests running beside this one would otherwise reclaim the lane while the
        // thread waits for its queue between two bursts (CI, under load: 3,840 made).
        Thread {
            ActionLane.withCurrentLanePinned {
                // The same burst again and again: as many actions as the lane holds, pending at
                // once on a queue that runs them once they are all scheduled, each burst beginning
                // a lap (when the lane may give back what the last laps did not need).
                func burst(_ count: Int) {
                    queue.suspend()
                    for _ in 0..<count {
                        queue.async(execute: probe.willSchedule(running: {}).run)
                    }
                    queue.resume()
                    queue.sync {}
                }
                // Warm: bursts as large as the lane already is (a lane an ended thread left may be
                // larger than 4,096, and would rightly give back what smaller bursts leave unused).
                let warmBurst = max(4_096, ActionLane.currentSize)
                for _ in 0..<3 { burst(warmBurst) }
                while ActionLane.currentCursor < ActionLane.currentSize {
                    probe.willSchedule(running: {}).run()
                }
                let size = ActionLane.currentSize
                let warm = ActionLane.currentMade
                for _ in 0..<12 {
                    burst(size)
                }
                result.withLock { $0 = (size, ActionLane.currentMade - warm) }
                done.signal()
            }
        }.start()
        done.wait()
        let (size, made) = result.withLock { $0 }
        #expect(size >= 4_096)
        // Not a quarter given back every other lap and made again on the next (a few may be
        // made where the queue had not released an action yet when the cursor came round).
        #expect(made <= 64, "\(made) actions made in 12 bursts of \(size) after the lane was warm")
        #expect(engine.ledger.liveCount == 0)
    }

    @Test func actionsHeldOrPendingForLongDoNotMakeTheLaneGrow() {
        let engine = makeEngine { $0.capturesAllocationStacks = false }
        let probe = engine.makeSchedulerProbe(label: "mixed")
        let done = DispatchSemaphore(value: 0)
        let sizes = LockedValue((before: 0, after: 0))
        Thread {
            ActionLane.withCurrentLanePinned {
                let timers = (0..<10).map { _ in probe.willSchedule(repeating: true) }
                let delayed = (0..<10).map { _ in probe.willSchedule(running: {}) }
                let held = (0..<100).map { _ in probe.willSchedule(running: {}) }
                for action in held { action.run() }  // ended, but this thread still refers to them
                let before = ActionLane.currentSize
                for _ in 0..<100_000 { probe.willSchedule(running: {}).run() }
                sizes.withLock { $0 = (before, ActionLane.currentSize) }
                #expect(held.allSatisfy { $0.isFinished }, "no held action was filled again")
                for timer in timers { probe.didCancel(timer) }
                for action in delayed { action.run() }
                done.signal()
            }
        }.start()
        done.wait()
        let (before, after) = sizes.withLock { $0 }
        // A lane an ended thread left may hold other tests' live actions, which the first lap
        // passes over before it parks them: a bounded growth, never one per lap.
        #expect(
            after <= max(before, ActionLane.minimumCapacity) + before / 4 + ActionLane.probes, "\(before) → \(after)")
        #expect(engine.ledger.liveCount == 0)
    }

    @Test func actionsStuckBehindOthersAreParkedNotWaitedFor() {
        let engine = makeEngine { $0.capturesAllocationStacks = false }
        let probe = engine.makeSchedulerProbe(label: "stuck")
        let done = DispatchSemaphore(value: 0)
        let result = LockedValue((before: 0, after: 0, made: 0))
        Thread {
            ActionLane.withCurrentLanePinned {
                // A thousand actions that never run (a suspended queue's), then actions that run
                // one after another: the stuck ones are taken out of the ring, not waited for.
                let stuck = (0..<1_000).map { _ in probe.willSchedule(running: {}) }
                let before = ActionLane.currentSize
                var madeBeforeTheLast = 0
                for round in 0..<20_000 {
                    if round == 19_000 { madeBeforeTheLast = ActionLane.currentMade }
                    probe.willSchedule(running: {}).run()
                }
                result.withLock { $0 = (before, ActionLane.currentSize, ActionLane.currentMade - madeBeforeTheLast) }
                #expect(engine.ledger.liveCount(of: .scheduledAction) == 1_000, "parked actions are still listed")
                #expect(engine.ledger.liveResources().count == 1_000)
                for action in stuck { action.run() }
                done.signal()
            }
        }.start()
        done.wait()
        let (before, after, made) = result.withLock { $0 }
        #expect(after <= before + before / 4 + ActionLane.probes, "\(before) → \(after)")
        #expect(made == 0, "\(made) actions made for the last 1,000")
        #expect(engine.ledger.liveCount == 0)
    }

    @Test func checkpointsReadLanesWhileThreadsFillThem() async {
        let engine = makeEngine { $0.capturesAllocationStacks = false }
        let probe = engine.makeSchedulerProbe(label: "busy")
        let stop = Atomic<Bool>(false)
        let scheduled = Atomic<Int>(0)
        let queue = DispatchQueue(label: "action-lane-tests.busy")
        let seconds = min(
            Double(ProcessInfo.processInfo.environment["REACTIVE_DIAGNOSTICS_STRESS_SECONDS"] ?? "") ?? 0.5, 0.5)
        await onThreads(3) { index in
            if index == 0 {
                let deadline = Date().addingTimeInterval(seconds)
                while Date() < deadline {
                    for resource in engine.ledger.liveResources() {
                        #expect(resource.kind == .scheduledAction && resource.label.name == "busy")
                    }
                }
                stop.store(true, ordering: .releasing)
            } else {
                while !stop.load(ordering: .acquiring) {
                    let action = probe.willSchedule(running: {})
                    queue.async(execute: action.run)
                    scheduled.add(1, ordering: .relaxed)
                }
            }
        }
        queue.sync {}
        #expect(scheduled.load(ordering: .relaxed) > 0)
        #expect(engine.ledger.liveResources().isEmpty && engine.ledger.liveCount == 0)
        #expect(probe.summary().executed == scheduled.load(ordering: .relaxed))
    }
}

/// A seeded generator (SplitMix64), so that a failing sequence is the same on every run.
private struct SplitMix {
    var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

#if canImport(Glibc)
/// glibc's `malloc_usable_size` (declared in `<malloc.h>`, which the Glibc module does not import).
@_silgen_name("malloc_usable_size")
private func malloc_usable_size(_ pointer: UnsafeMutableRawPointer) -> Int
#endif
