@_spi(Testing) import ReactiveDiagnostics
import RxDiagnostics
@preconcurrency import RxSwift
import Testing

extension RxIntegrationTests {
    /// `DiagnosedObserver` and `subscribe(diagnosed:)`: the checks at the final subscriber.
    @Suite("DiagnosedObserver")
    struct DiagnosedObserverTests {
        @Test func aDiagnosedObserverNeverDisposedOnANeverEndingSubjectLeaks() throws {
            let engine = makeEngine(settle: .milliseconds(200))
            let selection = BehaviorSubject(value: 0)
            var subscription: (any Disposable)?
            var received: [Int] = []
            let outcome = runTest(engine) {
                let observer = DiagnosedObserver<Int>("selection", engine: engine, onNext: { received.append($0) })
                subscription = selection.subscribe(observer)
                selection.onNext(1)
            }
            let finding = try #require(expectFinding(engine, outcome, .leakedSubscription, label: "selection"))
            #expect(finding.resourceKind == .subscription)
            #expect(received == [0, 1])
            subscription?.dispose()
            #expect(engine.liveCount(of: .subscription) == 0, "releasing the observer ends it")
        }

        @Test func aValueAfterCompletionReachingTheSubscriberIsValueAfterTermination() throws {
            let engine = makeEngine()
            let source = HandWrittenSource<String>([.next("a"), .completed, .next("b")])
            var received: [Event<String>] = []
            let outcome = runTest(engine) {
                let recorder = AnyObserver<String> { received.append($0) }
                _ = source.subscribe(recorder.diagnosedObserver("names", engine: engine))
            }
            _ = try #require(expectFinding(engine, outcome, .valueAfterTermination, label: "names"))
            #expect(received.map(\.element) == ["a", nil, "b"], "the wrapped observer gets every event unchanged")
        }

        @Test func anErrorWithoutOnErrorIsAnUnhandledErrorAtTheSubscribeCall() throws {
            let engine = makeEngine()
            var disposed = 0
            let outcome = runTest(engine) {
                _ = Observable<Int>.error(TestFailure(reason: "HTTP 500"))
                    .subscribe(diagnosed: "refresh", engine: engine, onNext: { _ in }, onDisposed: { disposed += 1 })
            }
            let finding = try #require(expectFinding(engine, outcome, .unhandledError, label: "refresh"))
            #expect(finding.details["error"] == "TestFailure(HTTP 500)")
            #expect(finding.message.contains("no onError handler"))
            #expect(disposed == 1, "onDisposed still runs after an unhandled error")
        }

        @Test func onDisposedRunsOnceOnCompletionOrOnDispose() {
            let engine = makeEngine()
            var disposedAfterCompletion = 0
            var disposedByDispose = 0
            var errors: [String] = []
            let outcome = runTest(engine) {
                let completed = Observable.of(1, 2).subscribe(
                    diagnosed: "completes", engine: engine, onDisposed: { disposedAfterCompletion += 1 })
                completed.dispose()
                let failing = Observable<Int>.error(TestFailure(reason: "x")).subscribe(
                    diagnosed: "fails", engine: engine, onError: { errors.append("\($0)") })
                failing.dispose()
                let never = Observable<Int>.never().subscribe(
                    diagnosed: "never", engine: engine, onDisposed: { disposedByDispose += 1 })
                #expect(disposedByDispose == 0)
                never.dispose()
                never.dispose()
            }
            #expect(disposedAfterCompletion == 1 && disposedByDispose == 1)
            #expect(errors == ["TestFailure(x)"])
            expectClean(engine, outcome, subscriptions: 3)
        }

        @Test func aDeliveryContractIsCheckedAtTheSubscriber() throws {
            let engine = makeEngine()
            let outcome = runTest(engine) {
                _ = Observable.of(1, 2, 3).subscribe(
                    diagnosed: "page", contract: StreamContract(values: 0...2), engine: engine)
            }
            let finding = try #require(expectFinding(engine, outcome, .contractViolation, label: "page"))
            #expect(finding.details["actual"] == "3")
        }
    }
}
