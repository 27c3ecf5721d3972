import Dispatch
import Foundation
@_spi(Testing) import ReactiveDiagnostics
import RxDiagnostics
@preconcurrency import RxSwift
import Testing

extension RxIntegrationTests {
    /// `.diagnosed()`: grammar, serial delivery, re-entrancy, leaks, dispose, transparency.
    @Suite("diagnosed() operator")
    struct DiagnosedObservableTests {
        // MARK: Findings

        @Test func aValueAfterCompletionIsValueAfterTermination() throws {
            let engine = makeEngine()
            let source = HandWrittenSource<Int>([.next(1), .completed, .next(2)])
            var received: [Event<Int>] = []
            let outcome = runTest(engine) {
                _ = source.diagnosed("legacy feed", engine: engine).subscribe { received.append($0) }
            }
            let finding = try #require(expectFinding(engine, outcome, .valueAfterTermination, label: "legacy feed"))
            #expect(finding.eventStack.isCaptured && finding.failsTest)
            #expect(outcome.findings.count == 1)
            // Transparent: the operator forwards what it checks; RxSwift's own observer drops it.
            #expect(received.map(\.element) == [1, nil])
        }

        @Test func twoThreadsCallingOnNextAtOnceIsConcurrentDelivery() throws {
            let engine = makeEngine()
            let observer = Box<AnyObserver<Int>?>(nil)
            let firstEntered = DispatchSemaphore(value: 0)
            let releaseFirst = DispatchSemaphore(value: 0)
            let received = Box<[Int]>([])
            let threads = Box<(first: UInt64, second: UInt64)>((0, 0))
            var printed = ""
            let outcome = runTest(engine) {
                let prices = Observable<Int>.create { sink in
                    observer.value = sink
                    return Disposables.create()
                }
                let subscription = prices.diagnosed("prices", engine: engine).subscribe(onNext: { price in
                    received.mutate { $0.append(price) }
                    if price == 1 {
                        firstEntered.signal()
                        releaseFirst.wait()  // still delivering 1 while the other thread delivers 2
                    }
                })
                printed = StandardOutput.capture {
                    let first = onNewThread {
                        threads.mutate { $0.first = ThreadInfo.current.id }
                        observer.value?.onNext(1)
                    }
                    expectSignal(firstEntered, "the first delivery")
                    let second = onNewThread {
                        threads.mutate { $0.second = ThreadInfo.current.id }
                        observer.value?.onNext(2)
                    }
                    expectSignal(second, "the second delivery")
                    releaseFirst.signal()
                    expectSignal(first, "the first delivery to return")
                }
                subscription.dispose()
            }
            let finding = try #require(expectFinding(engine, outcome, .concurrentDelivery, label: "prices"))
            #expect(finding.severity == .error && finding.failsTest)
            #expect(finding.eventStack.isCaptured, "the second thread's stack")
            #expect(finding.relatedStack.isCaptured, "the first thread's stack, added when it returned")
            #expect(finding.thread?.id == threads.value.second, "the event is the second thread's")
            #expect(finding.otherThread?.id == threads.value.first, "the other thread is the first")
            #expect(received.value.sorted() == [1, 2])
            #if DEBUG
            // RxSwift's own check only prints, and the test would pass.
            #expect(printed.contains("Synchronization anomaly was detected"))
            #endif
        }

        @Test func aSubjectReenteredFromItsOwnOnNextIsReentrantDelivery() throws {
            let engine = makeEngine()
            let counter = PublishSubject<Int>()
            var received: [Int] = []
            var printed = ""
            let outcome = runTest(engine) {
                let subscription = counter.diagnosed("counter", engine: engine).subscribe(onNext: { value in
                    received.append(value)
                    if value == 1 {
                        counter.onNext(2)  // re-enters the subject while it is delivering 1
                    }
                })
                printed = StandardOutput.capture { counter.onNext(1) }
                subscription.dispose()
            }
            let finding = try #require(expectFinding(engine, outcome, .reentrantDelivery, label: "counter"))
            #expect(finding.severity == .warning)
            #expect(finding.eventStack.isCaptured)
            expectStack(engine, finding.eventStack, contains: "PublishSubject")
            #expect(received == [1, 2])
            #if DEBUG
            #expect(printed.contains("Reentrancy anomaly was detected"))
            #endif
        }

        @Test func aSubscriptionCapturingSelfInItsOwnDisposeBagLeaks() throws {
            let engine = makeEngine(settle: .milliseconds(200))
            let prices = PublishSubject<Int>()  // never ends
            weak var leaked: PriceTicker?
            let outcome = runTest(engine) {
                var ticker: PriceTicker? = PriceTicker(
                    prices: prices.asObservable(), label: "price ticker", engine: engine, retainsItself: true)
                leaked = ticker
                prices.onNext(42)
                #expect(ticker?.latest == 42)
                ticker = nil  // the owner lets go; the cycle keeps it alive
            }
            let finding = try #require(expectFinding(engine, outcome, .leakedSubscription, label: "price ticker"))
            expectStack(engine, finding.allocationStack, contains: "PriceTicker.init")
            #expect(engine.describe(finding).contains("allocated at:"))
            // Why: the ticker's bag holds the subscription, whose closure holds the ticker.
            let path = try #require(finding.retainPath)
            #expect(path.verdict == .cycle, "\(path.textLines().joined(separator: "\n"))")
            #expect(path.cycle.first?.type == "PriceTicker")
            #expect(engine.describe(finding).contains("captures `self` strongly"), "\(engine.describe(finding))")
            if let directory = ProcessInfo.processInfo.environment["RX_DIAGNOSTICS_DESCRIBE_DIR"] {
                try engine.describe(finding).write(
                    toFile: directory + "/leakedSubscription-price-ticker.txt", atomically: true, encoding: .utf8)
            }
            #expect(leaked != nil, "the ticker is really kept alive by its own subscription")
            prices.onCompleted()  // ending the stream releases the closure and breaks the cycle
            #expect(leaked == nil)
            #expect(engine.liveCount(of: .subscription) == 0)
        }

        @Test func eventsAfterDisposeAreReportedAsInformation() throws {
            let engine = makeEngine()
            let source = HandWrittenSource<Int>()
            let outcome = runTest(engine) {
                let subscription = source.diagnosed("ignores dispose", engine: engine).subscribe()
                source.observer?.onNext(1)
                subscription.dispose()
                source.observer?.onNext(2)  // the source does not stop
            }
            let finding = try #require(expectFinding(engine, outcome, .valueAfterCancel, label: "ignores dispose"))
            #expect(finding.severity == .info && !finding.failsTest, "legal while in flight")
            #expect(source.disposeCount == 1)
        }

        @Test func aContractIsCheckedForEverySubscription() throws {
            let engine = makeEngine()
            let outcome = runTest(engine) {
                let request = Observable.of(1, 2).diagnosed("request", contract: .single, engine: engine)
                _ = request.subscribe()
                _ = request.subscribe()
            }
            let violations = outcome.findings.filter { $0.kind == .contractViolation }
            #expect(violations.count == 2, "one per subscription")
            for violation in violations {
                #expect(violation.label == "request" && violation.details["rule"] == "values")
                expectStack(engine, violation.allocationStack, contains: #function)
            }
        }

        @Test func aSubscriptionMadeOnAnotherThreadBelongsToTheTestThatBuiltIt() throws {
            let engine = makeEngine(settle: .milliseconds(200))
            let background = ConcurrentDispatchQueueScheduler(qos: .utility)
            let subscribed = DispatchSemaphore(value: 0)
            var subscription: (any Disposable)?
            let outcome = runTest(engine) {
                subscription = Observable<Int>.never()
                    .diagnosed("subscribed elsewhere", engine: engine)
                    .do(onSubscribed: { subscribed.signal() })
                    .subscribe(on: background)
                    .subscribe()
                expectSignal(subscribed, "the subscription on the background scheduler")
            }
            let finding = try #require(outcome.findings.first)
            #expect(outcome.findings.count == 1)
            #expect(finding.kind == .leakedSubscription && finding.label == "subscribed elsewhere")
            #expect(finding.test == outcome.test)
            subscription?.dispose()
        }

        // MARK: Transparency and disposal

        @Test func eventsAreForwardedUnchanged() {
            let engine = makeEngine()
            var plain: [Event<Int>] = []
            var diagnosed: [Event<Int>] = []
            let outcome = runTest(engine) {
                let source = Observable<Int>.create { observer in
                    observer.onNext(1)
                    observer.onNext(2)
                    observer.onError(TestFailure(reason: "offline"))
                    return Disposables.create()
                }
                _ = source.subscribe { plain.append($0) }
                _ = source.diagnosed("forwarded", engine: engine).subscribe { diagnosed.append($0) }
            }
            #expect(diagnosed.map(\.element) == [1, 2, nil])
            #expect(diagnosed.map(\.element) == plain.map(\.element))
            #expect(diagnosed.last?.error as? TestFailure == TestFailure(reason: "offline"))
            expectClean(engine, outcome, subscriptions: 1)
        }

        @Test func disposingDisposesTheSourceAndReleasesTheSubscription() {
            let engine = makeEngine()
            final class Owner {}
            weak var captured: Owner?
            var sourceDisposed = 0
            let outcome = runTest(engine) {
                let owner = Owner()
                captured = owner
                let source = Observable<Int>.create { _ in Disposables.create { sourceDisposed += 1 } }
                let subscription = source.diagnosed("disposed", engine: engine)
                    .subscribe(onNext: { _ in withExtendedLifetime(owner) {} })
                #expect(engine.liveCount(of: .subscription) == 1)
                subscription.dispose()
                subscription.dispose()
            }
            #expect(sourceDisposed == 1)
            #expect(captured == nil, "nothing of the subscription is left holding the closure")
            expectClean(engine, outcome, subscriptions: 1)
        }

        @Test func aTerminalEventDisposesTheSource() {
            let engine = makeEngine()
            let completing = HandWrittenSource<Int>([.next(1), .completed])
            let failing = HandWrittenSource<Int>([.error(TestFailure(reason: "x"))])
            var received: [Event<Int>] = []
            let outcome = runTest(engine) {
                // The concrete operator, under an observer that disposes nothing itself.
                let recorder = AnyObserver<Int> { received.append($0) }
                _ = DiagnosedObservable(source: completing, label: "completes", engine: engine).subscribe(recorder)
                _ = DiagnosedObservable(source: failing, label: "fails", engine: engine).subscribe(recorder)
            }
            #expect(
                completing.disposeCount == 1 && failing.disposeCount == 1,
                "the operator disposes its source after the terminal event, like RxSwift's sinks")
            #expect(received.count == 3)
            expectClean(engine, outcome, subscriptions: 2)
        }

        @Test func aDisabledEnginePassesEventsThroughUnchecked() {
            let engine = makeEngine()
            engine.updateConfiguration { $0.isEnabled = false }
            let source = HandWrittenSource<Int>([.next(1), .completed, .next(2)])
            var received: [Int] = []
            let outcome = runTest(engine) {
                _ = source.diagnosed("off", engine: engine).subscribe(onNext: { received.append($0) })
            }
            #expect(received == [1])
            #expect(outcome.findings.isEmpty)
            #expect(engine.registeredCount(of: .subscription) == 0)
        }
    }
}
