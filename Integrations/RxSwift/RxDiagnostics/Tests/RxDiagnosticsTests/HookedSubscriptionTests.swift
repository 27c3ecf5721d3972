import Dispatch
import Foundation
@_spi(Testing) import ReactiveDiagnostics
import RxDiagnostics
@preconcurrency import RxRelay
@preconcurrency import RxSwift
import Testing

extension RxIntegrationTests {
    /// `RxDiagnosticsHooks`: every closure-based subscription of the app code, counted with its
    /// stack and test, with no `.diagnosed()` anywhere: leaks found, ended ones never reported.
    @Suite("RxDiagnosticsHooks: subscriptions")
    struct HookedSubscriptionTests {
        static let label = "subscribe(onNext:)"

        /// Runs `body` as a test with the hooks installed on `engine`.
        func hooked(
            _ engine: DiagnosticsEngine, _ name: String = #function, _ body: () throws -> Void
        ) rethrows -> TestOutcome {
            RxDiagnosticsHooks.install(engine: engine)
            defer { RxDiagnosticsHooks.uninstall() }
            return try runTest(engine, name, body)
        }

        // MARK: Leaks, found in app code left as it is

        @Test func aStrongSelfViewModelOnItsOwnSubjectIsALeak() throws {
            let engine = makeEngine(settle: .milliseconds(300))
            weak var leaked: HeadlinesViewModel?
            let outcome = hooked(engine) {
                let model = HeadlinesViewModel()
                model.refreshes.onNext(["Swift 6.3 released"])
                #expect(model.headlines == ["Swift 6.3 released"])
                leaked = model
            }
            #expect(leaked != nil, "the cycle keeps the model alive after its last reference")
            let finding = try #require(expectFinding(engine, outcome, .leakedSubscription, label: Self.label))
            expectStack(engine, finding.allocationStack, contains: "HeadlinesViewModel.init")
            #expect(outcome.findings.count == 1)
            leaked?.stop()  // the subject completes: the observer, its closure and the model go
            #expect(leaked == nil)
        }

        @Test func anIntervalInABagThatOutlivesTheTestIsALeak() throws {
            let engine = makeEngine(settle: .milliseconds(300))
            let coordinatorBag = DisposeBag()  // outlives the test
            let clock = TickingClock()
            let outcome = hooked(engine) {
                clock.start(on: SerialDispatchQueueScheduler(qos: .utility), into: coordinatorBag)
            }
            let finding = try #require(expectFinding(engine, outcome, .leakedSubscription, label: Self.label))
            expectStack(engine, finding.allocationStack, contains: "TickingClock.start")
            #expect(finding.failsTest)
        }

        @Test func subscriptionsBuiltOnSubscribeOnNextAreCounted() throws {
            let engine = makeEngine(settle: .milliseconds(300))
            let bag = DisposeBag()
            let owner = WeakHeadlinesViewModel()
            let values = PublishSubject<Int>()
            let selection = BehaviorRelay(value: 1)
            let outcome = hooked(engine) {
                Followers.follow(values, with: owner, into: bag)
                Followers.follow(selection, into: bag) { _ in }
            }
            let leaks = outcome.findings.filter { $0.kind == .leakedSubscription }
            #expect(leaks.count == 2, "\(describe(engine, outcome.findings))")
            let stacks = leaks.map {
                engine.symbolize($0.allocationStack).frames.compactMap(\.function).joined(separator: "\n")
            }
            #expect(
                stacks.contains {
                    $0.contains("ObservableType.subscribe<") && $0.contains("(with:") && $0.contains("Followers.follow")
                })
            #expect(stacks.contains { $0.contains("Infallible") && $0.contains("Followers.follow") })
            #expect(leaks.allSatisfy { $0.test == outcome.test && $0.label == Self.label })
        }

        /// `subject`, then `operators` maps, then a closure-based subscribe, at one line.
        @inline(never)
        static func chain(_ subject: PublishSubject<Int>, operators: Int, into bag: DisposeBag) {
            var chain = subject.asObservable()
            for step in 0..<operators {
                chain = chain.map { $0 + step }
            }
            chain.subscribe(onNext: { _ in }).disposed(by: bag)
        }

        /// One bug, one finding: the hooks count the chain's one closure-based subscription, never
        /// its operators; a `flatMap`'s never-ending inner adds nothing; two chains are two.
        @Test(arguments: [1, 3, 10])
        func aLeakedChainIsOneFinding(operators: Int) throws {
            let engine = makeEngine(settle: .milliseconds(300))
            let bag = DisposeBag()  // outlives the test
            let subject = PublishSubject<Int>()
            let outcome = hooked(engine) {
                Self.chain(subject, operators: operators, into: bag)
                subject.flatMap { _ in Observable<Int>.never() }.subscribe(onNext: { _ in }).disposed(by: bag)
                subject.onNext(1)
            }
            let leaks = outcome.findings.filter { $0.kind == .leakedSubscription }
            #expect(leaks.count == 2, "\(describe(engine, outcome.findings))")
            #expect(leaks.allSatisfy { $0.test == outcome.test && $0.label == Self.label })
            let stacks = leaks.map {
                engine.symbolize($0.allocationStack).frames.compactMap(\.function).joined(separator: "\n")
            }
            #expect(stacks.filter { $0.contains("HookedSubscriptionTests.chain") }.count == 1)
            #expect(stacks.filter { $0.contains("aLeakedChainIsOneFinding") }.count == 2)
        }

        // MARK: Ended subscriptions are never reported

        @Test func disposedCompletedFailedAndBagReleasedSubscriptionsAreNotLeaks() {
            let engine = makeEngine()
            var errors: [String] = []
            let outcome = hooked(engine) {
                let subject = PublishSubject<Int>()
                subject.subscribe(onNext: { _ in }).dispose()  // disposed
                _ = Observable.of(1, 2, 3).subscribe(onNext: { _ in })  // completed
                _ = Observable<Int>.error(TestFailure(reason: "offline"))
                    .subscribe(onNext: { _ in }, onError: { errors.append("\($0)") })  // failed
                _ = subject.take(1).subscribe(onNext: { _ in })  // completes on the next value
                subject.onNext(1)
                do {
                    let bag = DisposeBag()
                    subject.subscribe(onNext: { _ in }).disposed(by: bag)  // the bag is released here
                    Observable<Int>.interval(.milliseconds(5), scheduler: SerialDispatchQueueScheduler(qos: .utility))
                        .subscribe(onNext: { _ in }).disposed(by: bag)
                }
                _ = WeakHeadlinesViewModel()  // its bag goes with it
            }
            #expect(errors == ["TestFailure(offline)"])
            expectClean(engine, outcome, subscriptions: 7)
        }

        @Test func aBagReleasedWhenTheTestEndsFreesItsSubscriptions() {
            let engine = makeEngine()
            let outcome = hooked(engine) {
                let model = WeakHeadlinesViewModel()
                model.refreshes.onNext(["a"])
                #expect(model.headlines == ["a"])
            }
            expectClean(engine, outcome, subscriptions: 1)
        }

        @Test func anUnhandledErrorEndsTheSubscriptionAndIsItsTestsFinding() throws {
            let engine = makeEngine()
            let outcome = hooked(engine) {
                _ = Observable<Int>.error(TestFailure(reason: "HTTP 500")).subscribe(onNext: { _ in })
            }
            let finding = try #require(expectFinding(engine, outcome, .unhandledError, label: nil))
            #expect(finding.details["error"] == "TestFailure(HTTP 500)")
            #expect(outcome.findings.count == 1, "no leak: the error ended the subscription")
        }

        // MARK: Counts

        @Test func liveCountsPerSiteAreRightWithoutASweepByHand() throws {
            let engine = makeEngine()
            RxDiagnosticsHooks.install(engine: engine)
            defer { RxDiagnosticsHooks.uninstall() }
            let subject = PublishSubject<Int>()
            var first: [any Disposable] = []
            var second: [any Disposable] = []
            for _ in 0..<3 { first.append(subject.subscribe(onNext: { _ in })) }
            for _ in 0..<2 { second.append(subject.subscribe(onNext: { _ in })) }
            let live = engine.makeReport().ledger.liveAtEnd.filter { $0.label == Self.label }
            #expect(live.map(\.count) == [3, 2], "\(live)")
            #expect(Set(live.map(\.stack)).count == 2, "two allocation sites")

            first.forEach { $0.dispose() }
            // The report sweeps: disposed subscriptions are not counted, with no sweep by hand.
            let after = engine.makeReport()
            #expect(after.ledger.liveAtEnd.filter { $0.label == Self.label }.map(\.count) == [2])
            #expect(after.ledger.kinds.first { $0.kind == "subscription" }?.live == 2)
            second.forEach { $0.dispose() }
            #expect(engine.makeReport().ledger.liveAtEnd.isEmpty)
            #expect(engine.registeredCount(of: .subscription) == 5)
        }

        @Test func manySubscriptionsKeepTheProbesBounded() {
            let engine = makeEngine()
            RxDiagnosticsHooks.install(engine: engine)
            defer { RxDiagnosticsHooks.uninstall() }
            let subject = PublishSubject<Int>()
            var largest = 0
            for _ in 0..<20_000 {
                subject.subscribe(onNext: { _ in }).dispose()
                largest = max(largest, engine.tiedResourceCount)
            }
            #expect(largest <= 2_048 + 1, "swept as it goes: at most \(largest) watched at once")
            #expect(engine.registeredCount(of: .subscription) == 20_000)
            engine.sweepTiedResources()
            #expect(engine.liveCount(of: .subscription) == 0)
        }

        // MARK: Installation

        /// A test that sets RxSwift's hooks itself stops the counting: `isActive` says so, and
        /// `install()` again (as a test case's `setUp` does) puts the same hook back.
        @Test func hooksReplacedAfterInstallAreSeenAndInstallPutsThemBack() {
            let engine = makeEngine()
            RxDiagnosticsHooks.install(engine: engine)
            defer { RxDiagnosticsHooks.uninstall() }
            #expect(RxDiagnosticsHooks.isActive)
            #expect(
                RxDiagnosticsHooks.subscriptionsCounted == 0 && engine.registeredCount(of: .subscription) == 0,
                "asking counts no subscription")
            Hooks.customCaptureSubscriptionCallstack = { [] }  // some test's own hook
            #expect(!RxDiagnosticsHooks.isActive)
            let subject = PublishSubject<Int>()
            _ = subject.subscribe(onNext: { _ in })
            #expect(engine.registeredCount(of: .subscription) == 0, "RxSwift no longer calls ours")
            RxDiagnosticsHooks.install(engine: engine)
            #expect(RxDiagnosticsHooks.isActive)
            _ = subject.subscribe(onNext: { _ in })
            #expect(engine.registeredCount(of: .subscription) == 1)
            #expect(RxDiagnosticsHooks.subscriptionsCounted == 1, "the same hook counts on")
            Hooks.recordCallStackOnError = false  // RxSwift then calls no capture hook at all
            #expect(!RxDiagnosticsHooks.isActive)
            RxDiagnosticsHooks.install(engine: engine)
            #expect(RxDiagnosticsHooks.isActive && Hooks.recordCallStackOnError)
            subject.onCompleted()
        }

        /// Asking on one thread never takes another thread's subscription for the question.
        @Test func askingWhileOtherThreadsSubscribeCountsEverySubscription() {
            let engine = makeEngine()
            RxDiagnosticsHooks.install(engine: engine)
            defer { RxDiagnosticsHooks.uninstall() }
            let subject = PublishSubject<Int>()
            let perThread = 2_000
            DispatchQueue.concurrentPerform(iterations: 4) { index in
                if index == 0 {
                    for _ in 0..<perThread where !RxDiagnosticsHooks.isActive {
                        Issue.record("the installed hooks said they are not RxSwift's")
                        break
                    }
                } else {
                    for _ in 0..<perThread {
                        subject.subscribe(onNext: { _ in }).dispose()
                    }
                }
            }
            #expect(engine.registeredCount(of: .subscription) == 3 * perThread)
            #expect(RxDiagnosticsHooks.subscriptionsCounted == 3 * perThread)
        }

        @Test func installingAgainChangesNothingAndUninstallRestoresRxSwiftsHooks() {
            let engine = makeEngine()
            let recordedBefore = Hooks.recordCallStackOnError
            DispatchQueue.concurrentPerform(iterations: 8) { _ in RxDiagnosticsHooks.install(engine: engine) }
            #expect(RxDiagnosticsHooks.isInstalled && Hooks.recordCallStackOnError)
            _ = PublishSubject<Int>().subscribe(onNext: { _ in })
            RxDiagnosticsHooks.install(engine: engine)
            _ = PublishSubject<Int>().subscribe(onNext: { _ in })
            #expect(RxDiagnosticsHooks.subscriptionsCounted == 2, "the same installation counts on")
            RxDiagnosticsHooks.uninstall()
            #expect(!RxDiagnosticsHooks.isInstalled && Hooks.recordCallStackOnError == recordedBefore)
            _ = PublishSubject<Int>().subscribe(onNext: { _ in })
            #expect(engine.registeredCount(of: .subscription) == 2)
            #expect(RxDiagnosticsHooks.countsSubscriptions)
        }
    }
}
