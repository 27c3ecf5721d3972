import ReactiveDiagnostics
import RxDiagnostics
@preconcurrency import RxSwift
import Testing

extension RxIntegrationTests {
    /// Correct pipelines of combining operators, diagnosed at every stage.
    @Suite("False positives: combining")
    struct CombiningOperatorTests {
        @Test func mergeCombineLatestAndZip() {
            let engine = makeEngine()
            let letters = PublishSubject<String>()
            let numbers = PublishSubject<Int>()
            var merged: [String] = []
            var latest: [String] = []
            var zipped: [String] = []
            let outcome = runHookedTest(engine) {
                let l = letters.diagnosed("letters", engine: engine)
                let n = numbers.diagnosed("numbers", engine: engine)
                _ = Observable.merge(l, n.map(String.init).diagnosed("numbers as text", engine: engine))
                    .diagnosed("merge", engine: engine)
                    .subscribe(onNext: { merged.append($0) })
                _ = Observable.combineLatest(l, n) { "\($0)\($1)" }
                    .diagnosed("combineLatest", engine: engine)
                    .subscribe(onNext: { latest.append($0) })
                _ = Observable.zip(l, n) { "\($0)\($1)" }
                    .diagnosed("zip", engine: engine)
                    .subscribe(onNext: { zipped.append($0) })
                letters.onNext("a")
                numbers.onNext(1)
                letters.onNext("b")
                numbers.onNext(2)
                numbers.onNext(3)
                letters.onCompleted()
                numbers.onCompleted()
            }
            #expect(merged == ["a", "1", "b", "2", "3"])
            #expect(latest == ["a1", "b1", "b2", "b3"])
            #expect(zipped == ["a1", "b2"])
            // letters ×3, numbers ×3, numbers as text, merge, combineLatest, zip
            expectClean(engine, outcome, subscriptions: 3 + 3 + 1 + 3)
        }

        @Test func withLatestFromConcatAndAmb() {
            let engine = makeEngine()
            let taps = PublishSubject<Void>()
            let text = BehaviorSubject(value: "")
            var submitted: [String] = []
            var concatenated: [Int] = []
            var winner: [String] = []
            let outcome = runHookedTest(engine) {
                _ = taps.diagnosed("taps", engine: engine)
                    .withLatestFrom(text.diagnosed("text", engine: engine))
                    .diagnosed("withLatestFrom", engine: engine)
                    .subscribe(onNext: { submitted.append($0) })
                text.onNext("hel")
                text.onNext("hello")
                taps.onNext(())
                taps.onCompleted()
                _ = Observable.concat(
                    Observable.of(1, 2).diagnosed("first", engine: engine),
                    Observable.of(3).diagnosed("second", engine: engine)
                )
                .diagnosed("concat", engine: engine)
                .subscribe(onNext: { concatenated.append($0) })
                _ = Observable.just("fast").diagnosed("fast", engine: engine)
                    .amb(Observable<String>.never().diagnosed("slow", engine: engine))
                    .diagnosed("amb", engine: engine)
                    .subscribe(onNext: { winner.append($0) })
            }
            #expect(submitted == ["hello"])
            #expect(concatenated == [1, 2, 3])
            #expect(winner == ["fast"])
            expectClean(engine, outcome, subscriptions: 3 + 3 + 3)
        }
    }
}
