@_spi(Testing) import ReactiveDiagnostics
import RxDiagnostics
@preconcurrency import RxRelay
@preconcurrency import RxSwift
import Testing

extension RxIntegrationTests {
    /// `Single`, `Maybe`, `Completable` and `Infallible`, diagnosed with their default
    /// contracts (exactly one value; at most one; none; never fails).
    @Suite("False positives: Single, Maybe, Completable, Infallible")
    struct TraitTests {
        @Test func singleMaybeAndCompletableKeepTheirContracts() {
            let engine = makeEngine()
            var profile: [String] = []
            var cached: [Int] = []
            var empty = 0
            var saved = 0
            var failure: [String] = []
            let outcome = runHookedTest(engine, closureSubscriptions: false) {
                _ = Single<String>.create { single in
                    single(.success("ada"))
                    return Disposables.create()
                }
                .diagnosed("profile", engine: engine)
                .map { $0.uppercased() }.diagnosed("profile name", engine: engine)
                .subscribe(onSuccess: { profile.append($0) })
                _ = Single<Int>.error(TestFailure(reason: "404")).diagnosed("missing", engine: engine)
                    .subscribe(onFailure: { failure.append("\($0)") })
                _ = Maybe.just(7).diagnosed("cache hit", engine: engine).subscribe(onSuccess: { cached.append($0) })
                _ = Maybe<Int>.empty().diagnosed("cache miss", engine: engine).subscribe(onCompleted: { empty += 1 })
                _ = Completable.empty().diagnosed("save", engine: engine)
                    .andThen(Completable.empty().diagnosed("sync", engine: engine))
                    .subscribe(onCompleted: { saved += 1 })
                _ = Observable.of(1, 2, 3).diagnosed("first of", engine: engine)
                    .first().diagnosed("first", contract: StreamContract(values: 1...1), engine: engine)
                    .subscribe()
            }
            #expect(profile == ["ADA"] && failure == ["TestFailure(404)"] && cached == [7] && empty == 1 && saved == 1)
            expectClean(engine, outcome, subscriptions: 9)
        }

        @Test func aSingleDisposedBeforeItSucceedsIsNotALeak() {
            let engine = makeEngine()
            var cancelled = 0
            let outcome = runHookedTest(engine, closureSubscriptions: false) {
                let request = Single<Int>.create { _ in Disposables.create { cancelled += 1 } }
                    .diagnosed("slow request", engine: engine)
                let subscription = request.subscribe(onSuccess: { _ in })
                #expect(engine.liveCount(of: .subscription) == 1)
                subscription.dispose()
            }
            #expect(cancelled == 1)
            expectClean(engine, outcome, subscriptions: 1)
        }

        @Test func infallibleFromARelay() {
            let engine = makeEngine()
            var selections: [Int] = []
            let outcome = runHookedTest(engine) {
                let selection = BehaviorRelay(value: 0)
                let subscription = selection.asInfallible().diagnosed("selection", engine: engine)
                    .subscribe(onNext: { selections.append($0) })
                selection.accept(3)
                subscription.dispose()
            }
            #expect(selections == [0, 3])
            expectClean(engine, outcome, subscriptions: 1)
        }
    }
}
