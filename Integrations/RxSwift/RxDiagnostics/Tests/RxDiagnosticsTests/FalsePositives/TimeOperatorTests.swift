import Dispatch
import ReactiveDiagnostics
import RxDiagnostics
@preconcurrency import RxSwift
@preconcurrency import RxTest
import Testing

extension RxIntegrationTests {
    /// Time-based operators on RxTest's virtual-time `TestScheduler`, itself wrapped in a
    /// `DiagnosticScheduler`: every delayed action is tracked, none may be left pending.
    @Suite("False positives: time, on virtual time")
    struct TimeOperatorTests {
        /// A virtual clock and its diagnostic wrapper (one tick is one second).
        struct VirtualTime {
            let clock = TestScheduler(initialClock: 0)
            let scheduler: DiagnosticScheduler<TestScheduler>

            init(_ engine: DiagnosticsEngine) {
                scheduler = clock.diagnosed("virtual time", engine: engine)
            }
        }

        @Test func debounceAndThrottle() {
            let engine = makeEngine()
            let time = VirtualTime(engine)
            var debounced: [Recorded<Event<Int>>] = []
            var throttled: [Recorded<Event<Int>>] = []
            let outcome = runHookedTest(engine, closureSubscriptions: false) {
                let typing = time.clock.createHotObservable([
                    .next(210, 1), .next(215, 2), .next(300, 3), .next(305, 4), .completed(400),
                ])
                let observer = time.clock.createObserver(Int.self)
                let throttleObserver = time.clock.createObserver(Int.self)
                let source = typing.diagnosed("typing", engine: engine)
                time.clock.scheduleAt(200) {
                    _ = source.debounce(.seconds(20), scheduler: time.scheduler)
                        .diagnosed("debounce", engine: engine).subscribe(observer)
                    _ = source.throttle(.seconds(20), latest: false, scheduler: time.scheduler)
                        .diagnosed("throttle", engine: engine).subscribe(throttleObserver)
                }
                time.clock.start()
                debounced = observer.events
                throttled = throttleObserver.events
            }
            #expect(debounced == [.next(235, 2), .next(325, 4), .completed(400)])
            #expect(throttled == [.next(210, 1), .next(300, 3), .completed(400)])
            #expect(time.scheduler.summary().executed > 0)
            expectClean(engine, outcome, subscriptions: 4)
        }

        @Test func delayTimeoutAndBuffer() {
            let engine = makeEngine()
            let time = VirtualTime(engine)
            var delayed: [Recorded<Event<Int>>] = []
            var timedOut: [Recorded<Event<Int>>] = []
            var buffered: [Recorded<Event<[Int]>>] = []
            let outcome = runHookedTest(engine, closureSubscriptions: false) {
                let source = time.clock.createHotObservable([
                    .next(210, 1), .next(220, 2), .next(230, 3), .completed(300),
                ]).diagnosed("source", engine: engine)
                delayed =
                    time.clock.start {
                        source.delay(.seconds(5), scheduler: time.scheduler).diagnosed("delay", engine: engine)
                    }.events
                let slow = time.clock.createHotObservable([.next(1010, 1), .next(1200, 2)])
                timedOut =
                    time.clock.start(created: 1000, subscribed: 1000, disposed: 2000) {
                        slow.diagnosed("slow", engine: engine)
                            .timeout(
                                .seconds(100), other: Observable.just(-1).diagnosed("fallback", engine: engine),
                                scheduler: time.scheduler
                            )
                            .diagnosed("timeout", engine: engine)
                    }.events
                let burst = time.clock.createHotObservable([
                    .next(2010, 1), .next(2011, 2), .next(2012, 3), .next(2100, 4), .completed(2200),
                ])
                buffered =
                    time.clock.start(created: 2000, subscribed: 2000, disposed: 3000) {
                        burst.diagnosed("burst", engine: engine)
                            .buffer(timeSpan: .seconds(50), count: 2, scheduler: time.scheduler)
                            .diagnosed("buffer", engine: engine)
                    }.events
            }
            #expect(delayed == [.next(215, 1), .next(225, 2), .next(235, 3), .completed(305)])
            #expect(timedOut == [.next(1010, 1), .next(1110, -1), .completed(1110)])
            #expect(
                buffered == [
                    .next(2011, [1, 2]), .next(2061, [3]), .next(2111, [4]), .next(2161, []), .next(2200, []),
                    .completed(2200),
                ])
            #expect(time.scheduler.summary().pending == 0)
            expectClean(engine, outcome, subscriptions: 7)
        }

        @Test func periodicTimersAndSampleDisposedAtTheEnd() {
            let engine = makeEngine()
            let time = VirtualTime(engine)
            var sampled: [Recorded<Event<Int>>] = []
            var timer: [Recorded<Event<Int>>] = []
            let outcome = runHookedTest(engine, closureSubscriptions: false) {
                sampled =
                    time.clock.start(disposed: 280) {
                        Observable<Int>.timer(.seconds(3), period: .seconds(10), scheduler: time.scheduler)
                            .diagnosed("ticks", engine: engine)
                            .sample(
                                Observable<Int>.interval(.seconds(25), scheduler: time.scheduler)
                                    .diagnosed("sampler", engine: engine)
                            )
                            .diagnosed("sample", engine: engine)
                    }.events
                timer =
                    time.clock.start(created: 300, subscribed: 300, disposed: 400) {
                        Observable<Int>.timer(.seconds(30), scheduler: time.scheduler).diagnosed(
                            "timer", engine: engine)
                    }.events
            }
            // ticks at 203, 213, …, 273; samples at 225, 250, 275
            #expect(sampled == [.next(225, 2), .next(250, 4), .next(275, 7)])
            #expect(timer == [.next(330, 0), .completed(330)])
            #expect(time.scheduler.summary().activeRepeating == 0, "both intervals were disposed")
            expectClean(engine, outcome, subscriptions: 4)
        }

        @Test func flatMapLatestSwitchesToTheNewestInnerStream() {
            let engine = makeEngine()
            let time = VirtualTime(engine)
            var events: [Recorded<Event<Int>>] = []
            let outcome = runHookedTest(engine, closureSubscriptions: false) {
                let queries = time.clock.createHotObservable([.next(210, 1), .next(250, 2), .completed(400)])
                events =
                    time.clock.start {
                        queries.diagnosed("queries", engine: engine)
                            .flatMapLatest { query in
                                time.clock.createColdObservable([
                                    .next(10, query * 10), .next(50, query * 100), .completed(60),
                                ]).diagnosed("results \(query)", engine: engine)
                            }
                            .diagnosed("flatMapLatest", engine: engine)
                    }.events
            }
            #expect(events == [.next(220, 10), .next(260, 20), .next(300, 200), .completed(400)])
            expectClean(engine, outcome, subscriptions: 4)
        }
    }
}
