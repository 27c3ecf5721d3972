@_spi(Integration) import ReactiveDiagnostics
import Testing
import _ReactiveDiagnosticsSupport

@Suite("Resource ledger")
struct ResourceLedgerTests {
    let label = DiagnosticLabel("feed")

    @Test func registerAndUnregisterCountLiveTotalsAndPeaks() {
        let ledger = ResourceLedger()
        let tokens = (0..<3).map { _ in ledger.register(kind: .subscription, label: label, stack: .none, test: .none) }
        #expect(ledger.liveCount(of: .subscription) == 3)
        #expect(ledger.liveCount == 3)
        ledger.unregister(tokens[0])
        ledger.unregister(tokens[1])
        _ = ledger.register(kind: .subscription, label: label, stack: .none, test: .none)
        #expect(ledger.liveCount(of: .subscription) == 2)
        #expect(ledger.peakCount(of: .subscription) == 3)
        #expect(ledger.registeredCount(of: .subscription) == 4)
        #expect(ledger.liveCount(of: .timer) == 0)
    }

    @Test func unregisteringTwiceIsDetected() {
        let ledger = ResourceLedger()
        let token = ledger.register(kind: .timer, label: label, stack: .none, test: .none)
        #expect(ledger.isLive(token))
        #expect(ledger.unregister(token))
        #expect(!ledger.unregister(token))
        #expect(!ledger.isLive(token))
        #expect(!ledger.unregister(.none))
        #expect(ledger.liveCount(of: .timer) == 0)
    }

    @Test func aReusedSlotDoesNotAcceptTheOldToken() {
        let ledger = ResourceLedger()
        let old = ledger.register(kind: .observer, label: label, stack: .none, test: .none)
        ledger.unregister(old)
        let new = ledger.register(kind: .observer, label: label, stack: .none, test: .none)
        #expect(!ledger.unregister(old), "the stale token must not free the new resource")
        #expect(ledger.isLive(new))
        #expect(ledger.liveCount(of: .observer) == 1)
    }

    @Test func epochsAnswerAllocatedAfterCheckpointAndStillAlive() {
        let ledger = ResourceLedger()
        let before = ledger.register(kind: .subscription, label: label, stack: .none, test: .none)
        let epoch = ledger.advanceEpoch()
        let during = ledger.register(kind: .subscription, label: label, stack: .none, test: .none)
        let freed = ledger.register(kind: .subscription, label: label, stack: .none, test: .none)
        ledger.unregister(freed)
        let live = ledger.liveResources(since: epoch)
        #expect(live.map(\.token) == [during])
        #expect(ledger.liveResources().count == 2)
        _ = before
    }

    @Test func testsAnswerWhatEachTestLeft() {
        let ledger = ResourceLedger()
        let first = TestIdentity(name: "LedgerTests.first")
        let second = TestIdentity(name: "LedgerTests.second")
        _ = ledger.register(kind: .subscription, label: label, stack: .none, test: first)
        _ = ledger.register(kind: .timer, label: label, stack: .none, test: second)
        _ = ledger.register(kind: .timer, label: label, stack: .none, test: second)
        #expect(ledger.liveResources(test: first).map(\.kind) == [.subscription])
        #expect(ledger.liveResources(test: second).count == 2)
    }

    /// A checkpoint of a test with nothing alive scans no slot: the per-test counts say so. They
    /// may only overstate (another test sharing the counts, a resource of the test alive on any
    /// thread), never hide a live resource.
    @Test func aTestWithNothingAliveIsToldWithoutAScanAndALiveOneNeverHides() {
        let ledger = ResourceLedger()
        let test = TestIdentity(name: "LedgerTests.counted")
        let other = TestIdentity(name: "LedgerTests.counted.other")
        #expect(!ledger.mayHaveLive(test: test))
        let kept = ledger.register(kind: .subscription, label: label, stack: .none, test: test)
        let ended = ledger.register(kind: .timer, label: label, stack: .none, test: test)
        #expect(ledger.mayHaveLive(test: test))
        ledger.unregister(ended)
        #expect(ledger.mayHaveLive(test: test) && ledger.liveResources(test: test).map(\.token) == [kept])
        ledger.unregister(kept)
        #expect(!ledger.mayHaveLive(test: test) && ledger.liveResources(test: test).isEmpty)

        // Registered on other threads, ended on others again: the counts still balance.
        let tokens = LockedValue<[ResourceToken]>([])
        onThreads(4) { _ in
            for _ in 0..<200 {
                let token = ledger.register(kind: .subscription, label: self.label, stack: .none, test: test)
                tokens.withLock { $0.append(token) }
            }
        }
        #expect(ledger.mayHaveLive(test: test) && ledger.liveResources(test: test).count == 800)
        let all = tokens.withLock { $0 }
        onThreads(4) { index in
            for token in all[(index * 200)..<((index + 1) * 200)] { ledger.unregister(token) }
        }
        #expect(!ledger.mayHaveLive(test: test))

        // A test whose counts another test's live resource shares is scanned, and answered right.
        let sharing = TestIdentity(rawValue: test.rawValue &+ UInt32(64))
        let theirs = ledger.register(kind: .subscription, label: label, stack: .none, test: sharing)
        #expect(ledger.mayHaveLive(test: test) && ledger.liveResources(test: test).isEmpty)
        ledger.unregister(theirs)
        _ = ledger.register(kind: .subscription, label: label, stack: .none, test: other)
        #expect(ledger.liveResources(test: other).count == 1)
    }

    @Test func statisticsGroupLiveResourcesBySiteAndLabel() {
        let ledger = ResourceLedger()
        let interner = StackInterner()
        let siteA = interner.intern([1, 2, 3])
        let siteB = interner.intern([4, 5, 6])
        let test = TestIdentity(name: "LedgerTests.statistics")
        for _ in 0..<3 {
            _ = ledger.register(kind: .subscription, label: DiagnosticLabel("a"), stack: siteA, test: test)
        }
        _ = ledger.register(kind: .subscription, label: DiagnosticLabel("b"), stack: siteB, test: .none)
        let statistics = ledger.statistics()
        #expect(statistics.sites.count == 2)
        #expect(statistics.sites[0].count == 3 && statistics.sites[0].stack == siteA)
        #expect(statistics.sites[0].tests == [test])
        #expect(statistics.liveByLabel.map(\.count) == [3, 1])
        let subscriptions = statistics.kinds.first { $0.kind == .subscription }
        #expect(subscriptions?.live == 4 && subscriptions?.peak == 4 && subscriptions?.registered == 4)
    }

    @Test func customKindsAreInterned() {
        let socket = ResourceKind.named("socket")
        #expect(socket == ResourceKind.named("socket"))
        #expect(socket.name == "socket")
        #expect(socket.leakFindingKind == .leakedResource)
        #expect(ResourceKind.timer.leakFindingKind == .uncancelledTimer)
        #expect(ResourceKind.scheduledAction.leakFindingKind == .pendingAction)
    }

    @Test func concurrentRegistrationFromManyThreadsIsExact() {
        let ledger = ResourceLedger()
        let label = self.label
        let threads = 8
        let perThread = 20_000
        onThreads(threads) { thread in
            var tokens: [ResourceToken] = []
            tokens.reserveCapacity(64)
            for index in 0..<perThread {
                tokens.append(ledger.register(kind: .subscription, label: label, stack: .none, test: .none))
                // Keep a rolling window alive so slots are reused while others register.
                if tokens.count == 64 || index == perThread - 1 {
                    for token in tokens where !ledger.unregister(token) {
                        Issue.record("token unregistered twice on thread \(thread)")
                    }
                    tokens.removeAll(keepingCapacity: true)
                }
            }
        }
        #expect(ledger.liveCount(of: .subscription) == 0)
        #expect(ledger.liveResources().isEmpty)
        #expect(ledger.registeredCount(of: .subscription) == threads * perThread)
        #expect(ledger.peakCount(of: .subscription) <= threads * 64)
        #expect(ledger.peakCount(of: .subscription) >= 64)
    }

    @Test func concurrentLiveCountsAreExactWhileResourcesStayAlive() {
        let ledger = ResourceLedger()
        let label = self.label
        let kept = LockedValue([ResourceToken]())
        onThreads(4) { _ in
            var mine: [ResourceToken] = []
            for _ in 0..<5_000 {
                mine.append(ledger.register(kind: .cancellable, label: label, stack: .none, test: .none))
            }
            kept.withLock { $0 += mine }
        }
        #expect(ledger.liveCount(of: .cancellable) == 20_000)
        #expect(Set(kept.withLock { $0 }).count == 20_000, "every token is distinct")
        onThreads(4) { thread in
            let tokens = kept.withLock { Array($0[(thread * 5_000)..<((thread + 1) * 5_000)]) }
            for token in tokens { ledger.unregister(token) }
        }
        #expect(ledger.liveCount(of: .cancellable) == 0)
        #expect(ledger.peakCount(of: .cancellable) == 20_000)
    }

    @Test func watchedResourcesEndWithTheirObject() {
        final class Subscriber {}
        let ledger = ResourceLedger()
        var subscriber: Subscriber? = Subscriber()
        let token = ledger.register(kind: .subscriber, label: label, stack: .none, test: .none)
        ledger.watch(token, object: subscriber!)
        #expect(ledger.sweep() == 0)
        subscriber = nil
        #expect(ledger.sweep() == 1)
        #expect(!ledger.isLive(token))
        _ = subscriber
    }

    @Test func theWatchedObjectCanBeFoundFromItsToken() {
        final class Observer {}
        let ledger = ResourceLedger()
        var observer: Observer? = Observer()
        let token = ledger.register(kind: .subscription, label: label, stack: .none, test: .none)
        ledger.watch(token, object: observer!)
        #expect(ledger.watchedObject(token) === observer)
        #expect(ledger.watchedCount == 1)
        observer = nil
        #expect(ledger.watchedObject(token) == nil)
        ledger.sweep()
        #expect(ledger.watchedCount == 0)
        #expect(ledger.watchedObject(.none) == nil)
    }

    @Test func sweepingWhenDueKeepsTheProbesBounded() {
        final class Observer {}
        let ledger = ResourceLedger()
        var largest = 0
        var sweeps = 0
        for _ in 0..<10_000 {
            let token = ledger.register(kind: .subscription, label: label, stack: .none, test: .none)
            ledger.watch(token, object: Observer())  // gone at once
            if ledger.sweepIfDue() > 0 { sweeps += 1 }
            largest = max(largest, ledger.watchedCount)
        }
        #expect(largest <= 1_024, "swept once the floor is reached: \(largest)")
        #expect(sweeps >= 9)
        #expect(ledger.liveCount(of: .subscription) < 1_024)

        // Alive objects double the threshold: the sweeps stay amortized O(1) per resource.
        var kept: [Observer] = []
        for _ in 0..<5_000 {
            let observer = Observer()
            kept.append(observer)
            let token = ledger.register(kind: .subscription, label: label, stack: .none, test: .none)
            ledger.watch(token, object: observer)
            ledger.sweepIfDue()
        }
        #expect(ledger.watchedCount >= 5_000)
        #expect(ledger.liveCount(of: .subscription) >= 5_000)
        kept.removeAll()
        ledger.sweep()
        #expect(ledger.liveCount(of: .subscription) == 0)
    }

    @Test func heldResourcesEndWhenTheLedgerHoldsTheLastReference() {
        final class Storage {}
        let ledger = ResourceLedger()
        var storage: Storage? = Storage()
        var others: [Storage] = []
        let token = ledger.register(kind: .subscription, label: label, stack: .none, test: .none)
        ledger.hold(token, object: storage!)
        for _ in 0..<3 {
            let other = Storage()
            others.append(other)
            ledger.hold(ledger.register(kind: .subscription, label: label, stack: .none, test: .none), object: other)
        }
        #expect(ledger.watchedObject(token) === storage)
        #expect(ledger.heldResource(for: storage!)?.token == token)
        #expect(ledger.sweep() == 0)
        storage = nil
        #expect(ledger.sweep() == 1)
        #expect(!ledger.isLive(token) && ledger.watchedObject(token) == nil)
        others.removeFirst()
        #expect(ledger.sweep() == 1)
        #expect(ledger.liveCount(of: .subscription) == 2 && ledger.watchedCount == 2)
        others.removeAll()
        #expect(ledger.sweep() == 2)
        #expect(ledger.watchedCount == 0)
    }

    @Test func releasedObjectsOfARecycledPoolAreHandedOutAgain() {
        final class Storage {}
        let ledger = ResourceLedger()
        let pool = ObjectIdentifier(Storage.self)
        ledger.recycle(pool, keeping: 16 * 2)  // two per shard
        var made = 0
        func register() -> AnyObject {
            ledger.registerHeld(kind: .subscription, label: label, stack: .none, test: .none, pool: pool) {
                made += 1
                return Storage()
            }.object
        }
        var storages = (0..<3).map { _ in register() }
        #expect(made == 3 && ledger.liveCount(of: .subscription) == 3 && ledger.watchedCount == 3)
        let identities = Set(storages.map(ObjectIdentifier.init))
        storages.removeAll()
        #expect(ledger.sweep() == 3 && ledger.watchedCount == 0)
        // This thread's shard kept two of the three (its capacity); the next two come from there.
        let reused = [register(), register()]
        #expect(made == 3, "no new object while the pool has some")
        #expect(reused.allSatisfy { identities.contains(ObjectIdentifier($0)) })
        _ = register()
        #expect(made == 4)
        #expect(ledger.liveCount(of: .subscription) == 3)
        #expect(ledger.heldResource(for: reused[0])?.kind == .subscription)
    }
}
