import CombineDiagnostics
import Dispatch
import Foundation
import OpenCombineShim
import Synchronization
import Testing

extension CombineAdapterTests {
    /// Two threads sending to one subscriber at once are found in (nearly) every run, naming two
    /// different threads and both stacks; a serial source that hops threads never is.
    ///
    /// Repeated runs (`REACTIVE_DIAGNOSTICS_STRESS_RUNS`, default 100): each starts two threads
    /// together, each sending 10,000 values through a publisher that does not serialise them.
    /// The publisher's own overlap is counted beside the diagnostics (the ground truth: did the
    /// two threads' sends overlap at all?).
    @Suite struct SerialDeliveryStress {
        static let runs = Int(ProcessInfo.processInfo.environment["REACTIVE_DIAGNOSTICS_STRESS_RUNS"] ?? "") ?? 100
        static let valuesPerThread = 10_000

        enum Mode: String, CaseIterable, Sendable {
            case diagnosedOperator, instrumentation
        }

        @Test(arguments: Mode.allCases)
        func twoThreadsSendingAtOnceAreFoundInEveryRun(_ mode: Mode) {
            var tally = StressTally()
            for _ in 0..<Self.runs {
                let engine = makeEngine()
                let upstream = ManualPublisher<Int, Never>()
                var overlapped = false
                let subscribe = {
                    let published = mode == .diagnosedOperator
                        ? upstream.diagnosed("two senders", engine: engine).eraseToAnyPublisher()
                        : upstream.eraseToAnyPublisher()
                    let cancellable = published.sink { _ in }
                    overlapped = sendFromTwoThreads(Self.valuesPerThread) { upstream.send($0) }
                    cancellable.cancel()
                }
                let outcome = mode == .instrumentation
                    ? instrumented(engine) { _ in runTest(engine) { subscribe() } }
                    : runTest(engine) { subscribe() }
                tally.add(outcome.findings.map(engine.latest), overlapped: overlapped)
            }
            tally.expectEveryOverlapFound(runs: Self.runs)
        }

        @Test(arguments: Mode.allCases)
        func aSerialSourceThatHopsThreadsIsNeverReported(_ mode: Mode) {
            let engine = makeEngine()
            let subject = PassthroughSubject<Int, Never>()
            let received = Atomic<Int>(0)
            let outcome = runTest(engine) {
                let run = {
                    let published = mode == .diagnosedOperator
                        ? subject.diagnosed("serial hops", engine: engine).eraseToAnyPublisher()
                        : subject.eraseToAnyPublisher()
                    let cancellable = published.sink { _ in received.add(1, ordering: .relaxed) }
                    let lock = NSLock()
                    // Both threads send, one at a time (the lock spans each whole send).
                    _ = sendFromTwoThreads(2_000) { value in lock.withLock { subject.send(value) } }
                    cancellable.cancel()
                }
                if mode == .instrumentation {
                    instrumented(engine) { _ in run() }
                } else {
                    run()
                }
            }
            #expect(outcome.findings.isEmpty, "\(outcome.findings.map { engine.describe($0) })")
            #expect(received.load(ordering: .relaxed) == 4_000)
            #expect(engine.threadHopProbeUsage.probes > 0, "the deliveries changed threads and were probed")
        }

        @Test func receiveOnASerialQueueIsNeverReported() {
            let engine = makeEngine()
            let subject = PassthroughSubject<Int, Never>()
            let queue = DispatchQueue(label: "serial receiver")
            let done = DispatchSemaphore(value: 0)
            let outcome = instrumented(engine) { _ in
                runTest(engine) {
                    let cancellable = subject.receive(on: queue).diagnosed("received", engine: engine).sink { value in
                        if value == 3_999 { done.signal() }
                    }
                    let lock = NSLock()
                    _ = sendFromTwoThreads(2_000) { value in lock.withLock { subject.send(value) } }
                    #expect(done.wait(timeout: .now() + 30) == .success)
                    cancellable.cancel()
                }
            }
            #expect(outcome.findings.isEmpty, "\(outcome.findings.map { engine.describe($0) })")
        }
    }
}

/// Runs `send` for `count` values on each of two threads started together; returns whether
/// the two threads' calls ever overlapped (counted around each call, outside the diagnostics).
/// Values are numbered 0..<2·count, thread by thread.
func sendFromTwoThreads(_ count: Int, _ send: @escaping (Int) -> Void) -> Bool {
    let send = Unchecked(send)
    let ready = Atomic<Int>(0)
    let inside = Atomic<Int>(0)
    let overlapped = Atomic<Bool>(false)
    let group = DispatchGroup()
    for thread in 0..<2 {
        group.enter()
        Thread {
            ready.add(1, ordering: .relaxed)
            while ready.load(ordering: .relaxed) < 2 {}
            for index in 0..<count {
                if inside.add(1, ordering: .relaxed).newValue > 1 {
                    overlapped.store(true, ordering: .relaxed)
                }
                send.value(thread * count + index)
                inside.subtract(1, ordering: .relaxed)
            }
            group.leave()
        }.start()
    }
    group.wait()
    return overlapped.load(ordering: .relaxed)
}

/// What repeated stress runs found.
struct StressTally {
    private(set) var overlappedRuns = 0
    private(set) var detected = 0
    private(set) var complete = 0
    private(set) var sameThreadTwice = 0
    private(set) var falseFindings = 0

    /// Adds one run's findings; `overlapped` is the emitter's own truth.
    mutating func add(_ findings: [Finding], overlapped: Bool) {
        let concurrent = findings.filter { $0.kind == .concurrentDelivery }
        falseFindings += findings.count - concurrent.count
        sameThreadTwice += concurrent.count { $0.otherThread == nil || $0.otherThread?.id == $0.thread?.id }
        guard overlapped else {
            falseFindings += concurrent.count
            return
        }
        overlappedRuns += 1
        if !concurrent.isEmpty {
            detected += 1
        }
        if concurrent.contains(where: { $0.relatedStack.isCaptured && $0.eventStack.isCaptured }) {
            complete += 1
        }
    }

    /// At least 99 % of the runs whose sends overlapped raised the finding with both stacks;
    /// no finding ever names one thread twice; no other finding at all.
    func expectEveryOverlapFound(runs: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        let summary = "\(detected) of \(overlappedRuns) overlapping runs found (\(complete) with both stacks), of \(runs) runs"
        FileHandle.standardError.write(Data("serial delivery stress: \(summary)\n".utf8))
        #expect(overlappedRuns * 2 >= runs, "the stress must overlap its threads: \(summary)", sourceLocation: sourceLocation)
        #expect(detected * 100 >= overlappedRuns * 99, "\(summary)", sourceLocation: sourceLocation)
        #expect(complete * 100 >= overlappedRuns * 99, "\(summary)", sourceLocation: sourceLocation)
        #expect(sameThreadTwice == 0, "\(sameThreadTwice) findings named one thread twice", sourceLocation: sourceLocation)
        #expect(falseFindings == 0, "\(falseFindings) findings where the sends never overlapped", sourceLocation: sourceLocation)
    }
}
