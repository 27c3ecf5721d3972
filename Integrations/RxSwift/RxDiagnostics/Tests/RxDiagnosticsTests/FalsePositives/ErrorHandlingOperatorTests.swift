import ReactiveDiagnostics
import RxDiagnostics
@preconcurrency import RxSwift
import Testing

extension RxIntegrationTests {
    /// `catch` and `retry`, diagnosed at every stage: failing, retried and replaced streams
    /// are correct streams.
    @Suite("False positives: catch and retry")
    struct ErrorHandlingOperatorTests {
        @Test func catchReplacesAFailedStream() {
            let engine = makeEngine()
            var received: [Int] = []
            var completed = false
            let outcome = runHookedTest(engine) {
                _ = Observable<Int>.create { observer in
                    observer.onNext(1)
                    observer.onError(TestFailure(reason: "offline"))
                    return Disposables.create()
                }
                .diagnosed("network", engine: engine)
                .catch { _ in Observable.of(-1, -2).diagnosed("cached", engine: engine) }
                .diagnosed("catch", engine: engine)
                .catchAndReturn(0).diagnosed("catchAndReturn", engine: engine)
                .subscribe(onNext: { received.append($0) }, onCompleted: { completed = true })
            }
            #expect(received == [1, -1, -2] && completed)
            expectClean(engine, outcome, subscriptions: 4)
        }

        @Test func retryResubscribesUntilTheSourceSucceeds() {
            let engine = makeEngine()
            var attempts = 0
            var received: [String] = []
            let outcome = runHookedTest(engine) {
                _ = Observable<String>.create { observer in
                    attempts += 1
                    if attempts < 3 {
                        observer.onError(TestFailure(reason: "attempt \(attempts)"))
                    } else {
                        observer.onNext("ok")
                        observer.onCompleted()
                    }
                    return Disposables.create()
                }
                .diagnosed(
                    "flaky request", contract: StreamContract(values: 0...1, termination: .required), engine: engine
                )
                .retry(3).diagnosed("retry", engine: engine)
                .subscribe(onNext: { received.append($0) })
            }
            #expect(attempts == 3 && received == ["ok"])
            expectClean(engine, outcome, subscriptions: 3 + 1)
        }

        @Test func anErrorHandledByTheSubscriberIsNotAFinding() {
            let engine = makeEngine()
            var errors: [String] = []
            let outcome = runHookedTest(engine, closureSubscriptions: false) {
                _ = Observable<Int>.error(TestFailure(reason: "expected"))
                    .diagnosed("failing", engine: engine)
                    .subscribe(diagnosed: "subscriber", engine: engine, onError: { errors.append("\($0)") })
            }
            #expect(errors == ["TestFailure(expected)"])
            expectClean(engine, outcome, subscriptions: 2)
        }
    }
}
