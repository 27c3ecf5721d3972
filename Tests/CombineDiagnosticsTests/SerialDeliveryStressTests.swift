import CombineDiagnostics
import Dispatch
import Foundation
import OpenCombineShim
import Synchronization
import Testing

extension CombineAdapterTests {
    /// Two threads sending to one subscriber at once are found, naming two different threads and
    /// both stacks; a serial source that hops threads never is.
    ///
    /// Repeated runs (`REACTIVE_DIAGNOSTICS_STRESS_RUNS`, default 100): each starts two threads
    /// together, each sending 10,000 values through a publisher that does not serialise them.
    /// Beside the diagnostics the test counts, around each `send`, whether the two threads' calls
    /// overlapped (no finding may exist without it), and, in the subscriber, whether two
    /// deliveries were inside it at once (every such run must be found). The share of the runs
    /// whose calls overlapped that were found is printed: on a quiet machine all of them; on an
    /// oversubscribed one the two threads also take turns on one CPU, and a thread preempted
    /// inside `send` but outside the subscriber overlaps the other's calls without ever
    /// delivering at the same time, which no overlap check can see.
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
                let inSubscriber = Overlap()
                let subscribe = {
                    let published = mode == .diagnosedOperator
                        ? upstream.diagnosed("two senders", engine: engine).eraseToAnyPublisher()
                        : upstream.eraseToAnyPublisher()
                    let cancellable = published.sink { _ in inSubscriber.around {} }
                    overlapped = sendFromTwoThreads(Self.valuesPerThread) { upstream.send($0) }
                    cancellable.cancel()
                }
                let outcome = mode == .instrumentation
                    ? instrumented(engine) { _ in runTest(engine) { subscribe() } }
                    : runTest(engine) { subscribe() }
                tally.add(outcome.findings.map(engine.latest), overlapped: overlapped, atSubscriber: inSubscriber.happened)
            }
            tally.expect(rate: nil, runs: Self.runs)
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
            let received = Atomic<Int>(0)
            let done = DispatchSemaphore(value: 0)
            let outcome = instrumented(engine) { _ in
                runTest(engine) {
                    let cancellable = subject.receive(on: queue).diagnosed("received", engine: engine).sink { _ in
                        if received.add(1, ordering: .relaxed).newValue == 4_000 { done.signal() }
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
    let overlap = Overlap()
    let group = DispatchGroup()
    for thread in 0..<2 {
        group.enter()
        Thread {
            ready.add(1, ordering: .relaxed)
            while ready.load(ordering: .relaxed) < 2 {}
            for index in 0..<count {
                overlap.around { send.value(thread * count + index) }
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
    /// whose deliveries overlapped inside the subscriber found; and, with `rate`, at least that
    /// share of the runs whose calls overlapped found with both stacks.
    func expect(rate: Double?, runs: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        let summary = "\(detected) of \(overlappedRuns) runs whose calls overlapped found (\(complete) with both stacks), "
            + "\(subscriberOverlapRuns - subscriberOverlapMissed) of \(subscriberOverlapRuns) whose deliveries overlapped in the subscriber, of \(runs) runs"
        FileHandle.standardError.write(Data("serial delivery stress: \(summary)\n".utf8))
        #expect(overlappedRuns * 2 >= runs, "the stress must overlap its threads: \(summary)", sourceLocation: sourceLocation)
        #expect(subscriberOverlapMissed == 0, "\(summary)", sourceLocation: sourceLocation)
        if let rate {
            #expect(Double(detected) >= rate * Double(overlappedRuns), "\(summary)", sourceLocation: sourceLocation)
            #expect(Double(complete) >= rate * Double(overlappedRuns), "\(summary)", sourceLocation: sourceLocation)
        }
        #expect(sameThreadTwice == 0, "\(sameThreadTwice) findings named one thread twice", sourceLocation: sourceLocation)
        #expect(falseFindings == 0, "\(falseFindings) findings where the calls never overlapped", sourceLocation: sourceLocation)
    }
}
