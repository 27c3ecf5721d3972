import Dispatch
import Foundation
@_spi(Testing) import ReactiveDiagnostics
@_spi(Testing) import RxDiagnostics
@preconcurrency import RxSwift
import Testing

extension RxIntegrationTests {
    /// `DiagnosticScheduler`: live actions and timers, threads, latency, long actions.
    @Suite("DiagnosticScheduler")
    struct DiagnosticSchedulerTests {
        @Test func anIntervalNeverDisposedIsOneLeakedSubscriptionHoldingItsTimer() throws {
            let engine = makeEngine(settle: .milliseconds(200))
            let ticker = SerialDispatchQueueScheduler(qos: .utility).diagnosed("ticker", engine: engine)
            let firstTick = DispatchSemaphore(value: 0)
            var subscription: (any Disposable)?
            let outcome = runTest(engine) {
                subscription = Observable<Int>.interval(.milliseconds(5), scheduler: ticker)
                    .diagnosed("ticks", engine: engine)
                    .subscribe(onNext: { tick in if tick == 0 { firstTick.signal() } })
                expectSignal(firstTick, "the first tick")
            }
            // One bug: the subscription is never disposed, and its timer is alive because it is.
            #expect(outcome.findings.count == 1, "\(describe(engine, outcome.findings))")
            let leak = try #require(expectFinding(engine, outcome, .leakedSubscription, label: "ticks"))
            #expect(leak.details["stages"] == "ticker (timer) → ticks", "\(leak.details)")
            #expect(leak.details["stageFingerprints"]?.split(separator: " ").count == 2)
            #expect(ticker.summary().activeRepeating == 1)
            subscription?.dispose()
            #expect(ticker.summary().activeRepeating == 0)
            #expect(engine.liveCount(of: .timer) == 0 && engine.liveCount(of: .subscription) == 0)
        }

        @Test func workExpectedOnMainArrivingOnABackgroundSchedulerIsWrongThread() throws {
            let engine = makeEngine()
            let background = SerialDispatchQueueScheduler(qos: .userInitiated)
            let titles = PublishSubject<String>()
            let delivered = DispatchSemaphore(value: 0)
            let outcome = runTest(engine) {
                // The pipeline promises main-queue delivery but observes on a background queue.
                let subscription =
                    titles
                    .observe(on: background)
                    .diagnosed("title", contract: StreamContract(delivery: .mainQueue), engine: engine)
                    .subscribe(onNext: { _ in delivered.signal() })
                titles.onNext("Inbox")
                expectSignal(delivered, "the title")
                subscription.dispose()
            }
            let finding = try #require(expectFinding(engine, outcome, .wrongThread, label: "title"))
            #expect(finding.thread?.isMainQueue == false)
            #expect(finding.details["expected"] == "main queue")
        }

        @Test func aSchedulerExpectedOnMainRunningWorkInTheBackgroundIsWrongThread() throws {
            let engine = makeEngine()
            // Injected where the UI scheduler should be: a background queue.
            let ui = SerialDispatchQueueScheduler(qos: .userInitiated).diagnosed(
                "ui", expecting: .mainQueue, engine: engine)
            let titles = PublishSubject<String>()
            let delivered = DispatchSemaphore(value: 0)
            let outcome = runTest(engine) {
                let subscription = titles.observe(on: ui).subscribe(onNext: { _ in delivered.signal() })
                titles.onNext("Inbox")  // schedules the delivery: the allocation stack is here
                expectSignal(delivered, "the title")
                subscription.dispose()
            }
            let finding = try #require(expectFinding(engine, outcome, .wrongThread, label: "ui"))
            #expect(finding.resourceKind == .scheduledAction)
            #expect(ui.summary().threadViolations == 1)
            #expect(ui.runsOnOneQueue, "a serial dispatch queue scheduler runs every action on its queue")
        }

        @Test func mainSchedulerWorkRunsOnTheMainQueue() {
            let engine = makeEngine()
            let ui = MainScheduler.instance.diagnosed("main", expecting: .mainQueue, engine: engine)
            let titles = PublishSubject<String>()
            let delivered = DispatchSemaphore(value: 0)
            let onMain = Box<[Bool]>([])
            let outcome = runTest(engine) {
                let subscription =
                    titles
                    .observe(on: ui)
                    .diagnosed("title", contract: StreamContract(delivery: .mainQueue), engine: engine)
                    .subscribe(onNext: { _ in
                        onMain.mutate { $0.append(MainQueue.isCurrent) }
                        delivered.signal()
                    })
                titles.onNext("Inbox")
                expectSignal(delivered, "the title on the main queue")
                subscription.dispose()
            }
            #expect(onMain.value == [true])
            #expect(ui.summary().executed == 1 && ui.summary().threads.first?.isMainQueue == true)
            #expect(
                ui.runsOnOneQueue
                    && !CurrentThreadScheduler.instance.diagnosed("here", engine: engine).runsOnOneQueue)
            expectClean(engine, outcome, subscriptions: 1)
        }

        @Test func delayedWorkStillPendingAtTheEndIsAPendingAction() throws {
            let engine = makeEngine(settle: .milliseconds(200))
            let scheduler = ConcurrentDispatchQueueScheduler(qos: .utility).diagnosed("reminders", engine: engine)
            var reminder: (any Disposable)?
            let outcome = runTest(engine) {
                reminder = scheduler.scheduleRelative((), dueTime: .seconds(60)) { _ in Disposables.create() }
            }
            let finding = try #require(expectFinding(engine, outcome, .pendingAction, label: "reminders"))
            #expect(finding.resourceKind == .scheduledAction)
            #expect(scheduler.summary().pending == 1)
            reminder?.dispose()
            #expect(scheduler.summary().pending == 0 && scheduler.summary().cancelled == 1)
        }

        @Test func anActionRunningLongerThanTheThresholdIsALongAction() throws {
            let engine = makeEngine()
            let scheduler = SerialDispatchQueueScheduler(qos: .utility)
                .diagnosed("parser", longActionThreshold: .milliseconds(20), engine: engine)
            let done = DispatchSemaphore(value: 0)
            let outcome = runTest(engine) {
                _ = scheduler.schedule(()) { _ in
                    Thread.sleep(forTimeInterval: 0.06)
                    done.signal()
                    return Disposables.create()
                }
                expectSignal(done, "the long action")
            }
            let finding = try #require(expectFinding(engine, outcome, .longAction, label: "parser"))
            #expect(finding.severity == .warning)
            #expect(Int(finding.details["durationNanos"] ?? "") ?? 0 >= 50_000_000)
        }

        @Test func theSummaryCountsActionsLatencyAndThreads() {
            let engine = makeEngine()
            let scheduler = SerialDispatchQueueScheduler(qos: .utility).diagnosed(
                "io", expecting: .offMainQueue, engine: engine)
            let done = DispatchSemaphore(value: 0)
            let outcome = runTest(engine) {
                for _ in 0..<3 {
                    _ = scheduler.schedule(()) { _ in
                        done.signal()
                        return Disposables.create()
                    }
                }
                _ = scheduler.scheduleRelative((), dueTime: .milliseconds(10)) { _ in
                    done.signal()
                    return Disposables.create()
                }
                scheduler.scheduleRelative((), dueTime: .seconds(30)) { _ in Disposables.create() }.dispose()
                for index in 0..<4 {
                    expectSignal(done, "action \(index)")
                }
            }
            let summary = scheduler.summary()
            #expect(summary.label == "io" && summary.expectation == "off the main queue")
            #expect(summary.scheduled == 5 && summary.executed == 4 && summary.cancelled == 1)
            #expect(summary.pending == 0 && summary.threadViolations == 0)
            #expect(summary.threads.reduce(0) { $0 + $1.count } == 4, "a serial queue may use several worker threads")
            #expect(summary.threads.allSatisfy { !$0.isMainQueue })
            #expect(summary.latency.count == 4)
            expectClean(engine, outcome, subscriptions: 0)
        }

        @Test func disposingAnIntervalEndsItsTimer() {
            let engine = makeEngine()
            let ticker = ConcurrentDispatchQueueScheduler(qos: .utility).diagnosed("ticker", engine: engine)
            let ticks = DispatchSemaphore(value: 0)
            let outcome = runTest(engine) {
                let subscription = Observable<Int>.interval(.milliseconds(2), scheduler: ticker)
                    .diagnosed("ticks", engine: engine)
                    .subscribe(onNext: { _ in ticks.signal() })
                for index in 0..<3 {
                    expectSignal(ticks, "tick \(index)")
                }
                #expect(engine.liveCount(of: .timer) == 1)
                subscription.dispose()
            }
            let summary = ticker.summary()
            #expect(summary.scheduled == 1 && summary.executed >= 3 && summary.activeRepeating == 0)
            expectClean(engine, outcome, subscriptions: 1)
        }

        @Test func subscribeOnAndDisposeRunThroughTheScheduler() {
            let engine = makeEngine()
            let background = ConcurrentDispatchQueueScheduler(qos: .utility).diagnosed("subscriptions", engine: engine)
            let subscribedOn = Box<[Bool]>([])
            let subscribed = DispatchSemaphore(value: 0)
            let disposed = DispatchSemaphore(value: 0)
            let outcome = runTest(engine) {
                let subscription = Observable<Int>.never()
                    .do(
                        onSubscribe: {
                            subscribedOn.mutate { $0.append(MainQueue.isCurrent) }
                            subscribed.signal()
                        }, onDispose: { disposed.signal() }
                    )
                    .diagnosed("never", engine: engine)
                    .subscribe(on: background)
                    .subscribe()
                expectSignal(subscribed, "the subscription")
                subscription.dispose()
                expectSignal(disposed, "the disposal")
            }
            #expect(subscribedOn.value == [false])
            #expect(background.summary().scheduled == 2, "one action subscribes, one disposes")
            expectClean(engine, outcome, subscriptions: 1)
        }
    }
}
