@_spi(Testing) import ReactiveDiagnostics
import RxDiagnostics
@preconcurrency import RxRelay
@preconcurrency import RxSwift
import Testing

extension RxIntegrationTests {
    /// `share(replay:)`, subjects and relays, diagnosed on both sides: several subscribers,
    /// replayed values, disposal through a `DisposeBag`.
    @Suite("False positives: sharing, subjects and relays")
    struct SharingAndSubjectTests {
        @Test func shareReplayServesLateSubscribers() {
            let engine = makeEngine()
            let prices = PublishSubject<Int>()
            var first: [Int] = []
            var second: [Int] = []
            var subscriptions = 0
            let outcome = runHookedTest(engine) {
                let shared =
                    prices
                    .do(onSubscribe: { subscriptions += 1 })
                    .diagnosed("prices", engine: engine)
                    .share(replay: 1, scope: .whileConnected)
                    .diagnosed("share(replay:)", engine: engine)
                let bag = DisposeBag()
                shared.subscribe(onNext: { first.append($0) }).disposed(by: bag)
                prices.onNext(1)
                shared.subscribe(onNext: { second.append($0) }).disposed(by: bag)
                prices.onNext(2)
            }
            #expect(first == [1, 2] && second == [1, 2])
            #expect(subscriptions == 1, "one upstream subscription, shared")
            expectClean(engine, outcome, subscriptions: 3)
        }

        @Test func publishBehaviorReplayAndAsyncSubjects() {
            let engine = makeEngine()
            var published: [Int] = []
            var behaved: [Int] = []
            var replayed: [Int] = []
            var last: [Int] = []
            let outcome = runHookedTest(engine) {
                let publish = PublishSubject<Int>()
                let behavior = BehaviorSubject(value: 0)
                let replay = ReplaySubject<Int>.create(bufferSize: 2)
                let async = AsyncSubject<Int>()
                for value in 1...3 {
                    replay.onNext(value)
                }
                _ = publish.diagnosed("publish", engine: engine).subscribe(onNext: { published.append($0) })
                _ = behavior.diagnosed("behavior", engine: engine).subscribe(onNext: { behaved.append($0) })
                _ = replay.diagnosed("replay", engine: engine).subscribe(onNext: { replayed.append($0) })
                _ = async.diagnosed("async", engine: engine).subscribe(onNext: { last.append($0) })
                for subject in [AnyObserver(publish), AnyObserver(behavior), AnyObserver(replay), AnyObserver(async)] {
                    subject.onNext(4)
                    subject.onNext(5)
                    subject.onCompleted()
                }
            }
            #expect(published == [4, 5] && behaved == [0, 4, 5] && replayed == [2, 3, 4, 5] && last == [5])
            expectClean(engine, outcome, subscriptions: 4)
        }

        @Test func relaysDisposedByTheirOwnersBag() {
            let engine = makeEngine()
            var titles: [String] = []
            var events: [String] = []
            var history: [Int] = []
            let outcome = runHookedTest(engine) {
                let title = BehaviorRelay(value: "Inbox")
                let taps = PublishRelay<String>()
                let counts = ReplayRelay<Int>.create(bufferSize: 1)
                counts.accept(1)
                var bag: DisposeBag? = DisposeBag()
                title.asObservable().diagnosed("BehaviorRelay", engine: engine)
                    .subscribe(onNext: { titles.append($0) }).disposed(by: bag!)
                taps.asObservable().diagnosed("PublishRelay", engine: engine)
                    .subscribe(onNext: { events.append($0) }).disposed(by: bag!)
                counts.asObservable().diagnosed("ReplayRelay", engine: engine)
                    .subscribe(onNext: { history.append($0) }).disposed(by: bag!)
                title.accept("Archive")
                taps.accept("compose")
                counts.accept(2)
                // Relays never complete: three diagnosed stages and the hooks' three subscribe(onNext:).
                #expect(engine.liveCount(of: .subscription) == 6, "relays never complete")
                bag = nil  // the owner goes away
                title.accept("ignored")
            }
            #expect(titles == ["Inbox", "Archive"] && events == ["compose"] && history == [1, 2])
            expectClean(engine, outcome, subscriptions: 3)
        }
    }
}
