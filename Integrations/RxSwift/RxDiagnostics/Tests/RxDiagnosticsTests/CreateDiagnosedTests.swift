@_spi(Testing) import ReactiveDiagnostics
import RxDiagnostics
@preconcurrency import RxSwift
import Testing

extension RxIntegrationTests {
    /// `Observable.create(diagnosed:)`: the `create` closure's observer checked where events are sent.
    @Suite("create(diagnosed:)")
    struct CreateDiagnosedTests {
        @Test func createEmittingAfterOnCompletedIsValueAfterTermination() throws {
            let engine = makeEngine()
            var received: [Int] = []
            var completions = 0
            let outcome = runTest(engine) {
                let upload = Observable<Int>.create(diagnosed: "upload", engine: engine) { observer in
                    observer.onNext(1)
                    observer.onCompleted()
                    observer.onNext(2)  // the bug: a late progress callback
                    return Disposables.create()
                }
                _ =
                    upload
                    .diagnosed("after create", engine: engine)
                    .subscribe(onNext: { received.append($0) }, onCompleted: { completions += 1 })
            }
            let finding = try #require(expectFinding(engine, outcome, .valueAfterTermination, label: "upload"))
            #expect(finding.failsTest && finding.eventStack.isCaptured)
            expectStack(engine, finding.eventStack, contains: #function)
            #expect(outcome.findings.count == 1, "RxSwift's create sink dropped the value: nothing after it saw it")
            #expect(received == [1] && completions == 1)
        }

        @Test func createCompletingThenFailingIsDuplicateTermination() throws {
            let engine = makeEngine()
            let outcome = runTest(engine) {
                let save = Observable<Never>.create(diagnosed: "save", engine: engine) { observer in
                    observer.onCompleted()
                    observer.onError(TestFailure(reason: "late timeout"))
                    return Disposables.create()
                }
                _ = save.subscribe()
            }
            let finding = try #require(expectFinding(engine, outcome, .duplicateTermination, label: "save"))
            #expect(finding.details["event"] == "failed")
        }

        @Test func aCreateClosureEmittingAfterDisposeIsReportedAsInformation() throws {
            let engine = makeEngine()
            let observer = Box<AnyObserver<Int>?>(nil)
            let outcome = runTest(engine) {
                let location = Observable<Int>.create(diagnosed: "location", engine: engine) { sink in
                    observer.value = sink
                    return Disposables.create()  // forgets to stop the underlying updates
                }
                let subscription = location.subscribe()
                observer.value?.onNext(1)
                subscription.dispose()
                observer.value?.onNext(2)
            }
            let finding = try #require(expectFinding(engine, outcome, .valueAfterCancel, label: "location"))
            #expect(finding.severity == .info)
        }

        @Test func aCorrectCreateLeavesNothingBehind() {
            let engine = makeEngine()
            var disposedSources = 0
            var received: [Int] = []
            let outcome = runTest(engine) {
                let ticks = Observable<Int>.create(diagnosed: "ticks", engine: engine) { observer in
                    observer.onNext(1)
                    observer.onNext(2)
                    return Disposables.create { disposedSources += 1 }
                }
                let first = ticks.subscribe(onNext: { received.append($0) })
                let second = ticks.subscribe(onNext: { received.append($0) })
                #expect(engine.liveCount(of: .subscription) == 2)
                first.dispose()
                second.dispose()
            }
            #expect(received == [1, 2, 1, 2])
            #expect(disposedSources == 2)
            expectClean(engine, outcome, subscriptions: 2)
        }
    }
}
