import CombineDiagnostics
import Dispatch
import Foundation
import OpenCombineShim
import Synchronization
import Testing
import _SerialDeliveryStressHarness

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
                    let published =
                        mode == .diagnosedOperator
                        ? upstream.diagnosed("two senders", engine: engine).eraseToAnyPublisher()
                        : upstream.eraseToAnyPublisher()
                    let cancellable = published.sink { _ in inSubscriber.around {} }
                    overlapped = callFromTwoThreads(Self.valuesPerThread) { upstream.send($0) }
                    cancellable.cancel()
                }
                let outcome =
                    mode == .instrumentation
                    ? instrumented(engine) { _ in runTest(engine) { subscribe() } }
                    : runTest(engine) { subscribe() }
                tally.add(
                    outcome.findings.map(engine.latest), overlapped: overlapped, atSubscriber: inSubscriber.happened)
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
                    let published =
                        mode == .diagnosedOperator
                        ? subject.diagnosed("serial hops", engine: engine).eraseToAnyPublisher()
                        : subject.eraseToAnyPublisher()
                    let cancellable = published.sink { _ in received.add(1, ordering: .relaxed) }
                    let lock = NSLock()
                    // Both threads send, one at a time (the lock spans each whole send).
                    _ = callFromTwoThreads(2_000) { value in lock.withLock { subject.send(value) } }
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
                    _ = callFromTwoThreads(2_000) { value in lock.withLock { subject.send(value) } }
                    #expect(done.wait(timeout: .now() + 30) == .success)
                    cancellable.cancel()
                }
            }
            #expect(outcome.findings.isEmpty, "\(outcome.findings.map { engine.describe($0) })")
        }
    }
}
