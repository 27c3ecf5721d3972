import Dispatch
import Foundation
import ReactiveDiagnostics
import RxDiagnostics
@preconcurrency import RxSwift
import Synchronization
import Testing

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
                    overlapped.value = emitFromTwoThreads(Self.valuesPerThread) { observer.onNext($0) }
                    observer.onCompleted()
                    return Disposables.create()
                }
                let source = mode == .createDiagnosed
                    ? Observable<Int>.create(diagnosed: "two emitters", engine: engine, emit)
                    : Observable<Int>.create(emit).diagnosed("two emitters", engine: engine)
                let outcome = runTest(engine) {
                    StandardOutput.discard {
                        _ = source.subscribe(onNext: { _ in inSubscriber.around {} })
                    }
                }
                tally.add(outcome.findings.map(engine.latest), overlapped: overlapped.value, atSubscriber: inSubscriber.happened)
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
                _ = emitFromTwoThreads(2_000) { value in lock.withLock { subject.onNext(value) } }
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
            let target: any ImmediateSchedulerType = scheduler == "serial queue"
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
                _ = emitFromTwoThreads(2_000) { value in lock.withLock { subject.onNext(value) } }
                subject.onCompleted()
                expectSignal(done, "every value observed")
                subscription.dispose()
            }
            #expect(received.value == 4_000)
            expectClean(engine, outcome, subscriptions: 3)
        }
    }
}

/// Calls `emit` for `count` values on each of two threads started together; returns whether
/// the two threads' calls ever overlapped (counted around each call, outside the diagnostics).
func emitFromTwoThreads(_ count: Int, _ emit: @escaping (Int) -> Void) -> Bool {
    let emit = UncheckedSendable(emit)
    let ready = Atomic<Int>(0)
    let overlap = Overlap()
    let group = DispatchGroup()
    for thread in 0..<2 {
        group.enter()
        Thread {
            ready.add(1, ordering: .relaxed)
            while ready.load(ordering: .relaxed) < 2 {}
            for index in 0..<count {
                overlap.around { emit.value(thread * count + index) }
            }
            group.leave()
        }.start()
    }
    group.wait()
    return overlap.happened
}

/// Whether two threads were ever inside the same region at once.
final class Overlap: Sendable {
    private let inside = Atomic<Int>(0)
    private let seen = Atomic<Bool>(false)

    /// Runs `body`, noting whether another thread was inside meanwhile.
    @inline(__always)
    func around<Result>(_ body: () -> Result) -> Result {
        if inside.add(1, ordering: .relaxed).newValue > 1 {
            seen.store(true, ordering: .relaxed)
        }
        defer { inside.subtract(1, ordering: .relaxed) }
        return body()
    }

    var happened: Bool {
        seen.load(ordering: .relaxed)
    }
}

/// A value handed to another thread in a test that orders its uses itself.
struct UncheckedSendable<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// What repeated stress runs found.
struct StressTally {
    private(set) var overlappedRuns = 0
    private(set) var subscriberOverlapRuns = 0
    private(set) var subscriberOverlapMissed = 0
    private(set) var detected = 0
    private(set) var complete = 0
    private(set) var sameThreadTwice = 0
    private(set) var falseFindings = 0

    /// Adds one run's findings. `overlapped`: the emitter's calls overlapped (any finding
    /// without it is false). `atSubscriber`: two deliveries were inside the subscriber at once
    /// (the subscriber runs inside the checked delivery, so such a run must always be found).
    mutating func add(_ findings: [Finding], overlapped: Bool, atSubscriber: Bool) {
        let concurrent = findings.filter { $0.kind == .concurrentDelivery }
        falseFindings += findings.count - concurrent.count
        sameThreadTwice += concurrent.count { $0.otherThread == nil || $0.otherThread?.id == $0.thread?.id }
        guard overlapped else {
            falseFindings += concurrent.count
            return
        }
        overlappedRuns += 1
        if atSubscriber {
            subscriberOverlapRuns += 1
            if concurrent.isEmpty { subscriberOverlapMissed += 1 }
        }
        if !concurrent.isEmpty {
            detected += 1
        }
        if concurrent.contains(where: { $0.relatedStack.isCaptured && $0.eventStack.isCaptured }) {
            complete += 1
        }
    }

    /// Never a finding where the calls did not overlap, never one thread named twice; every run
    /// whose deliveries overlapped inside the subscriber found; and at least `rate` of the runs
    /// whose calls overlapped found with both stacks.
    func expect(rate: Double, runs: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        let summary = "\(detected) of \(overlappedRuns) runs whose calls overlapped found (\(complete) with both stacks), "
            + "\(subscriberOverlapRuns - subscriberOverlapMissed) of \(subscriberOverlapRuns) whose deliveries overlapped in the subscriber, of \(runs) runs"
        FileHandle.standardError.write(Data("serial delivery stress: \(summary)\n".utf8))
        #expect(overlappedRuns * 2 >= runs, "the stress must overlap its threads: \(summary)", sourceLocation: sourceLocation)
        #expect(subscriberOverlapMissed == 0, "\(summary)", sourceLocation: sourceLocation)
        #expect(Double(detected) >= rate * Double(overlappedRuns), "\(summary)", sourceLocation: sourceLocation)
        #expect(Double(complete) >= rate * Double(overlappedRuns), "\(summary)", sourceLocation: sourceLocation)
        #expect(sameThreadTwice == 0, "\(sameThreadTwice) findings named one thread twice", sourceLocation: sourceLocation)
        #expect(falseFindings == 0, "\(falseFindings) findings where the calls never overlapped", sourceLocation: sourceLocation)
    }
}
