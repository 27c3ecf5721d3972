import ReactiveDiagnostics
import RxDiagnostics
@preconcurrency import RxSwift
import Testing

extension RxIntegrationTests {
    /// Correct pipelines of transforming and filtering operators, diagnosed at every stage:
    /// no finding, nothing left alive.
    @Suite("False positives: transforming and filtering")
    struct TransformingOperatorTests {
        @Test func mapFilterScanAndDistinctUntilChanged() {
            let engine = makeEngine()
            var received: [Int] = []
            let outcome = runHookedTest(engine) {
                _ = Observable.of(1, 2, 2, 3, 4, 4, 5)
                    .diagnosed("source", engine: engine)
                    .distinctUntilChanged().diagnosed("distinctUntilChanged", engine: engine)
                    .map { $0 * 10 }.diagnosed("map", engine: engine)
                    .filter { $0 != 30 }.diagnosed("filter", engine: engine)
                    .scan(0, accumulator: +).diagnosed("scan", engine: engine)
                    .subscribe(onNext: { received.append($0) })
            }
            #expect(received == [10, 30, 70, 120])
            expectClean(engine, outcome, subscriptions: 5)
        }

        @Test func skipTakeAndReduce() {
            let engine = makeEngine()
            var sums: [Int] = []
            let outcome = runHookedTest(engine) {
                _ = Observable.range(start: 1, count: 10)
                    .diagnosed("range", engine: engine)
                    .skip(2).diagnosed("skip", engine: engine)
                    .take(6).diagnosed("take", engine: engine)
                    .reduce(0, accumulator: +).diagnosed("reduce", engine: engine)
                    .subscribe(onNext: { sums.append($0) })
            }
            #expect(sums == [3 + 4 + 5 + 6 + 7 + 8])
            expectClean(engine, outcome, subscriptions: 4)
        }

        @Test func takeDisposesANeverEndingSource() {
            let engine = makeEngine()
            let clicks = PublishSubject<Int>()
            var received: [Int] = []
            let outcome = runHookedTest(engine) {
                _ = clicks.diagnosed("clicks", engine: engine)
                    .take(2).diagnosed("take", engine: engine)
                    .take(until: { $0 > 100 }).diagnosed("take(until:)", engine: engine)
                    .subscribe(onNext: { received.append($0) })
                clicks.onNext(1)
                clicks.onNext(2)
                clicks.onNext(3)
            }
            #expect(received == [1, 2])
            #expect(clicks.hasObservers == false)
            expectClean(engine, outcome, subscriptions: 3)
        }

        @Test func flatMapAndConcatMapWithDiagnosedInnerStreams() {
            let engine = makeEngine()
            var flat: [String] = []
            var concatenated: [String] = []
            let outcome = runHookedTest(engine) {
                let ids = Observable.of(1, 2).diagnosed("ids", engine: engine)
                _ =
                    ids
                    .flatMap { id in Observable.of("\(id)a", "\(id)b").diagnosed("flatMap inner", engine: engine) }
                    .diagnosed("flatMap", engine: engine)
                    .subscribe(onNext: { flat.append($0) })
                _ =
                    ids
                    .concatMap { id in Observable.of("\(id)x", "\(id)y").diagnosed("concatMap inner", engine: engine) }
                    .diagnosed("concatMap", engine: engine)
                    .subscribe(onNext: { concatenated.append($0) })
            }
            #expect(flat == ["1a", "1b", "2a", "2b"])
            #expect(concatenated == ["1x", "1y", "2x", "2y"])
            // ids ×2, flatMap inner ×2, flatMap, concatMap inner ×2, concatMap
            expectClean(engine, outcome, subscriptions: 2 + 2 + 1 + 2 + 1)
        }

        @Test func compactMapStartWithEnumeratedAndToArray() {
            let engine = makeEngine()
            var arrays: [[String]] = []
            let outcome = runHookedTest(engine, closureSubscriptions: false) {
                _ = Observable.of("1", "x", "3")
                    .diagnosed("strings", engine: engine)
                    .compactMap(Int.init).diagnosed("compactMap", engine: engine)
                    .startWith(0).diagnosed("startWith", engine: engine)
                    .enumerated().diagnosed("enumerated", engine: engine)
                    .map { "\($0.index):\($0.element)" }.diagnosed("map", engine: engine)
                    .toArray().diagnosed("toArray", engine: engine)
                    .subscribe(onSuccess: { arrays.append($0) })
            }
            #expect(arrays == [["0:0", "1:1", "2:3"]])
            expectClean(engine, outcome, subscriptions: 6)
        }

        @Test func aViewModelThatCapturesItselfWeaklyDoesNotLeak() {
            let engine = makeEngine()
            let prices = PublishSubject<Int>()
            weak var released: PriceTicker?
            let outcome = runHookedTest(engine) {
                var ticker: PriceTicker? = PriceTicker(
                    prices: prices.asObservable(), label: "price ticker", engine: engine, retainsItself: false)
                released = ticker
                prices.onNext(7)
                #expect(ticker?.latest == 7)
                ticker = nil  // its DisposeBag disposes the subscription
            }
            #expect(released == nil)
            expectClean(engine, outcome, subscriptions: 1)
        }
    }
}
