import Dispatch
import Foundation
import ReactiveDiagnostics
import RxDiagnostics
@preconcurrency import RxSwift
import Synchronization
import Testing
import _SerialDeliveryStressHarness

extension RxIntegrationTests {
    /// `Observable.create` called from two threads at once is found in (nearly) every run,
    /// naming two different threads and both stacks, in RxSwift's debug build too (whose
    /// `SynchronizationTracker` prints under its lock and lines the two threads up); serial
    /// sources that hop threads never are.
    ///
    /// Repeated runs (`REACTIVE_DIAGNOSTICS_STRESS_RUNS`, default 100): each starts two threads
    /// together, each calling `onNext` 10,000 times. The emitter's own overlap is counted beside
    /// the diagnostics: the ground truth of whether the two threads' calls overlapped at all.
    @Suite("Serial delivery stress")
    struct SerialDeliveryStressTests {
        static let runs = Int(ProcessInfo.processInfo.environment["REACTIVE_DIAGNOSTICS_STRESS_RUNS"] ?? "") ?? 100
        static let valuesPerThread = 10_000

        enum Mode: String, CaseIterable, Sendable {
            /// `Observable.create { … }.diagnosed()`: behind RxSwift's own sink (and its lock).
            case diagnosedOperator
            /// `Observable.create(diagnosed:)`: in front of it.
            case createDiagnosed
        }

        @Test(arguments: Mode.allCases)
        func twoThreadsCallingOnNextAtOnceAreFoundInEveryRun(_ mode: Mode) {
            var tally = StressTally()
            for _ in 0..<Self.runs {
                let engine = makeEngine(settle: .milliseconds(100))
                let overlapped = Box(false)
                let inSubscriber = Overlap()
                let emit: (AnyObserver<Int>) -> any Disposable = { observer in
                    overlapped.value = callFromTwoThreads(Self.valuesPerThread) { observer.onNext($0) }
                    observer.onCompleted()
                    return Disposables.create()
                }
                let source =
                    mode == .createDiagnosed
                    ? Observable<Int>.create(diagnosed: "two emitters", engine: engine, emit)
                    : Observable<Int>.create(emit).diagnosed("two emitters", engine: engine)
                let outcome = runTest(engine) {
                    StandardOutput.discard {
                        _ = source.subscribe(onNext: { _ in inSubscriber.around {} })
                    }
                }
                tally.add(
                    outcome.findings.map(engine.latest), overlapped: overlapped.value,
                    atSubscriber: inSubscriber.happened)
            }
            tally.expect(rate: 0.99, runs: Self.runs)
        }

        @Test func aLockedSourceThatHopsThreadsIsNeverReported() {
            let engine = makeEngine()
            RxDiagnosticsHooks.install(engine: engine)
            defer { RxDiagnosticsHooks.uninstall() }
            let subject = PublishSubject<Int>()
            let received = Box(0)
            let outcome = runTest(engine) {
                let subscription = subject.diagnosed("serial hops", engine: engine)
                    .subscribe(onNext: { _ in received.mutate { $0 += 1 } })
                let lock = NSLock()
                // Both threads emit, one at a time (the lock spans each whole onNext).
                _ = callFromTwoThreads(2_000) { value in lock.withLock { subject.onNext(value) } }
                subscription.dispose()
            }
            #expect(received.value == 4_000)
            expectClean(engine, outcome, subscriptions: 1)
            #expect(engine.threadHopProbeUsage.probes > 0, "the deliveries changed threads and were probed")
        }

        @Test(arguments: ["serial queue", "concurrent queue"])
        func observeOnHopsThreadsWithoutAFinding(_ scheduler: String) {
            let engine = makeEngine()
            RxDiagnosticsHooks.install(engine: engine)
            defer { RxDiagnosticsHooks.uninstall() }
            let target: any ImmediateSchedulerType =
                scheduler == "serial queue"
                ? SerialDispatchQueueScheduler(qos: .utility) : ConcurrentDispatchQueueScheduler(qos: .utility)
            let subject = PublishSubject<Int>()
            let received = Box(0)
            let done = DispatchSemaphore(value: 0)
            let outcome = runTest(engine) {
                let subscription = subject.diagnosed("upstream", engine: engine)
                    .observe(on: target)
                    .diagnosed("observed", engine: engine)
                    .subscribe(onNext: { _ in received.mutate { $0 += 1 } }, onCompleted: { done.signal() })
                let lock = NSLock()
                _ = callFromTwoThreads(2_000) { value in lock.withLock { subject.onNext(value) } }
                subject.onCompleted()
                expectSignal(done, "every value observed")
                subscription.dispose()
            }
            #expect(received.value == 4_000)
            expectClean(engine, outcome, subscriptions: 3)
        }
    }
}
