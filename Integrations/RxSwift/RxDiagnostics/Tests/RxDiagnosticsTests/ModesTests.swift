import Dispatch
import Foundation
import ReactiveDiagnostics
import RxDiagnostics
@preconcurrency import RxSwift
import Testing
import _SerialDeliveryStressHarness

extension RxIntegrationTests {
    /// What each mode finds, as Docs/RxSwift.md shows it (its outputs come from these tests, run
    /// with `RX_DIAGNOSTICS_SHOW=1`): the hooks with no code change, and what needs `.diagnosed()`,
    /// `Observable.create(diagnosed:)` or `subscribe(diagnosed:)`.
    @Suite("What each mode finds")
    struct ModesTests {
        /// Prints the findings for the guide when `RX_DIAGNOSTICS_SHOW` is set.
        func show(_ engine: DiagnosticsEngine, _ findings: [Finding]) {
            guard ProcessInfo.processInfo.environment["RX_DIAGNOSTICS_SHOW"] != nil else { return }
            let text = findings.map { engine.describe(engine.latest($0)) }.joined(separator: "\n")
            FileHandle.standardError.write(Data("\n\(text)\n".utf8))
        }

        /// App code: a view model whose subscription has no `onError`.
        final class FeedViewModel {
            private(set) var items: [String] = []
            private let disposeBag = DisposeBag()

            init(refreshes: Observable<[String]>) {
                refreshes.subscribe(onNext: { self.items = $0 }).disposed(by: disposeBag)
            }
        }

        @Test func theHooksReportAnUnhandledErrorAtTheSubscribeCall() throws {
            let engine = makeEngine()
            let outcome = runHookedTest(engine) {
                _ = FeedViewModel(refreshes: .error(TestFailure(reason: "HTTP 503")))
            }
            let finding = try #require(expectFinding(engine, outcome, .unhandledError, label: nil))
            expectStack(engine, finding.allocationStack, contains: "FeedViewModel.init")
            #expect(outcome.findings.count == 1, "the error ended the subscription: no leak")
            show(engine, outcome.findings)
        }

        @Test func theHooksAloneSeeNeitherGrammarNorThreads() {
            let engine = makeEngine()
            var printed = ""
            let outcome = runHookedTest(engine) {
                printed = StandardOutput.capture {
                    let source = Observable<Int>.create { observer in
                        _ = callFromTwoThreads(10_000) { observer.onNext($0) }
                        observer.onCompleted()
                        observer.onNext(99)  // dropped by RxSwift's create sink
                        return Disposables.create()
                    }
                    _ = source.subscribe(onNext: { _ in })
                }
            }
            #expect(
                outcome.findings.isEmpty, "no code change: RxSwift drops the late value, and only prints the overlap")
            let anomalies = printed.components(separatedBy: "Synchronization anomaly").count - 1
            FileHandle.standardError.write(Data("RxSwift printed \(anomalies) synchronization anomalies\n".utf8))
        }

        @Test func diagnosedFindsTwoThreadsCallingOnNextWithBothThreads() throws {
            // Two threads that happen not to overlap in a run would make nothing to find: a few tries.
            var engine = makeEngine()
            var overlappingRun: TestOutcome?
            for _ in 0..<5 where overlappingRun == nil {
                engine = makeEngine()
                var overlapped = false
                let attempt = runHookedTest(engine) {
                    StandardOutput.discard {
                        let source = Observable<Int>.create { observer in
                            overlapped = callFromTwoThreads(2_000) { observer.onNext($0) }
                            observer.onCompleted()
                            return Disposables.create()
                        }
                        _ = source.diagnosed("prices", engine: engine).subscribe(onNext: { _ in })
                    }
                }
                overlappingRun = overlapped ? attempt : nil
            }
            let outcome = try #require(overlappingRun, "the two emitters never overlapped in 5 runs")
            let concurrent = outcome.findings.map(engine.latest).filter { $0.kind == .concurrentDelivery }
            let first = try #require(
                concurrent.first, "the emitters overlapped in this run? \(describe(engine, outcome.findings))")
            #expect(first.label == "prices" && first.test == outcome.test)
            expectStack(engine, first.allocationStack, contains: #function)
            #expect(concurrent.allSatisfy { $0.otherThread != nil && $0.otherThread?.id != $0.thread?.id })
            #expect(first.relatedStack.isCaptured && first.eventStack.isCaptured)
            #expect(outcome.findings.allSatisfy { $0.kind == .concurrentDelivery })
            show(engine, [first])
        }

        @Test func createDiagnosedFindsAValueAfterCompletion() throws {
            let engine = makeEngine()
            let outcome = runHookedTest(engine) {
                let upload = Observable<Double>.create(diagnosed: "upload", engine: engine) { observer in
                    observer.onNext(0.5)
                    observer.onCompleted()
                    observer.onNext(1)  // a late progress callback
                    return Disposables.create()
                }
                _ = upload.subscribe(onNext: { _ in })
            }
            _ = try #require(expectFinding(engine, outcome, .valueAfterTermination, label: "upload"))
            #expect(outcome.findings.count == 1)
            show(engine, outcome.findings)
        }

        @Test func subscribeDiagnosedFindsDeliveryOffTheMainQueue() throws {
            let engine = makeEngine()
            let done = DispatchSemaphore(value: 0)
            let outcome = runHookedTest(engine, closureSubscriptions: false) {
                _ = Observable.just(1).subscribe(on: ConcurrentDispatchQueueScheduler(qos: .utility))
                    .subscribe(
                        diagnosed: "chart", contract: StreamContract(delivery: .mainQueue), engine: engine,
                        onNext: { _ in }, onCompleted: { done.signal() })
                expectSignal(done, "completion")
            }
            let wrong = outcome.findings.filter { $0.kind == .wrongThread }
            #expect(wrong.count == 2 && outcome.findings.count == 2, "the value and the completion")
            for finding in wrong {
                #expect(finding.label == "chart" && finding.test == outcome.test)
                expectStack(engine, finding.allocationStack, contains: #function)
            }
            show(engine, Array(wrong.prefix(1)))
        }
    }
}
