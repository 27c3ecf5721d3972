import Dispatch
import ReactiveDiagnostics
import RxDiagnostics
@preconcurrency import RxSwift
import Testing

extension RxIntegrationTests {
    /// `observe(on:)` and `subscribe(on:)` on real queues, diagnosed at every stage: the
    /// stream hops threads but is never delivered from two at once.
    @Suite("False positives: observe(on:) and subscribe(on:)")
    struct SchedulingOperatorTests {
        @Test func subscribeOnAndObserveOnHopThreadsSerially() {
            let engine = makeEngine()
            let io = ConcurrentDispatchQueueScheduler(qos: .utility).diagnosed(
                "io", expecting: .offMainQueue, engine: engine)
            let serial = SerialDispatchQueueScheduler(qos: .userInitiated).diagnosed("serial", engine: engine)
            let received = Box<[Int]>([])
            let done = DispatchSemaphore(value: 0)
            let outcome = runHookedTest(engine) {
                _ = Observable.range(start: 1, count: 50)
                    .diagnosed("range", engine: engine)
                    .subscribe(on: io).diagnosed("subscribe(on:)", engine: engine)
                    .map { $0 * 2 }.diagnosed("map", engine: engine)
                    .observe(on: serial)
                    .diagnosed("observe(on:)", contract: StreamContract(delivery: .offMainQueue), engine: engine)
                    .subscribe(
                        onNext: { value in received.mutate { $0.append(value) } }, onCompleted: { done.signal() })
                expectSignal(done, "completion")
            }
            #expect(received.value == Array(stride(from: 2, through: 100, by: 2)))
            #expect(serial.summary().executed >= 1 && io.summary().executed >= 1)
            expectClean(engine, outcome, subscriptions: 4)
        }

        @Test func observeOnTheMainSchedulerDeliversOnTheMainQueue() {
            let engine = makeEngine()
            let ui = MainScheduler.instance.diagnosed("ui", expecting: .mainQueue, engine: engine)
            let received = Box<[String]>([])
            let done = DispatchSemaphore(value: 0)
            let outcome = runHookedTest(engine) {
                _ = Observable.of("a", "b", "c")
                    .diagnosed("letters", engine: engine)
                    .subscribe(on: ConcurrentDispatchQueueScheduler(qos: .utility))
                    .observe(on: ui)
                    .diagnosed(
                        "on main",
                        contract: StreamContract(values: 3...3, termination: .required, delivery: .mainQueue),
                        engine: engine
                    )
                    .subscribe(
                        onNext: { letter in received.mutate { $0.append(letter) } }, onCompleted: { done.signal() })
                expectSignal(done, "completion on the main queue")
            }
            #expect(received.value == ["a", "b", "c"])
            expectClean(engine, outcome, subscriptions: 2)
        }

        @Test func twoBackgroundSourcesMergedAreDeliveredSerially() {
            let engine = makeEngine()
            let received = Box<[Int]>([])
            let done = DispatchSemaphore(value: 0)
            let outcome = runHookedTest(engine) {
                let left = Observable.range(start: 0, count: 200)
                    .subscribe(on: ConcurrentDispatchQueueScheduler(qos: .utility))
                    .diagnosed("left", engine: engine)
                let right = Observable.range(start: 1000, count: 200)
                    .subscribe(on: ConcurrentDispatchQueueScheduler(qos: .userInitiated))
                    .diagnosed("right", engine: engine)
                _ = Observable.merge(left, right)
                    .diagnosed("merged", engine: engine)
                    .subscribe(
                        onNext: { value in received.mutate { $0.append(value) } }, onCompleted: { done.signal() })
                expectSignal(done, "both sources")
            }
            #expect(received.value.count == 400)
            #expect(received.value.filter { $0 < 1000 } == Array(0..<200))
            expectClean(engine, outcome, subscriptions: 3)
        }
    }
}
