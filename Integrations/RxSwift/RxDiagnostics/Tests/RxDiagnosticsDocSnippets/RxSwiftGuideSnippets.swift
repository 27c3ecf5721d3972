// The blocks of Docs/RxSwift.md, verbatim: compiled by this package's build and found by the root
// package's DocumentationSnippetTests (see Tests/DocSnippets/README.md at the root).

import Foundation
@preconcurrency import RxRelay
import RxDiagnostics
@preconcurrency import RxSwift
import ReactiveDiagnosticsTesting
import ReactiveDiagnosticsXCTest
import Testing
import XCTest

/// Docs/RxSwift.md's snippets.
enum RxSwiftGuide {}

// "With no change to the app code"
extension RxSwiftGuide {
    final class FeedViewModelTests: DiagnosedTestCase {
        override class func setUp() {
            super.setUp()
            RxDiagnosticsHooks.install()        // once: every closure-based subscribe is counted from now on
        }

        func testRefreshShowsTheHeadlines() {
            let model = HeadlinesViewModel()    // subscribe(onNext: { self.headlines = $0 }).disposed(by: disposeBag)
            model.refreshes.onNext(["Swift 6.3 released"])
            XCTAssertEqual(model.headlines, ["Swift 6.3 released"])
        }
    }

    @Suite(.diagnosed)
    struct ClockTests {
        init() { RxDiagnosticsHooks.install() }

        @Test func clockTicks() {
            TickingClock().start(on: MainScheduler.instance, into: coordinator.disposeBag)
        }
    }
}

// "With the test glue and .diagnosed() in the code"
extension RxSwiftGuide {
    @Suite(.diagnosed)
    struct PriceTickerTests {
        @Test func showsTheLatestPrice() {
            let prices = PublishSubject<Int>()
            let ticker = PriceTicker(prices: prices)   // subscribes with .diagnosed("price ticker")
            prices.onNext(42)
            #expect(ticker.latest == 42)
        }   // the ticker retains itself through its DisposeBag: this test fails with leakedSubscription
    }
}

// "The operators"
extension RxSwiftGuide {
    final class PriceScreen {
        let items = BehaviorRelay<[String]>(value: [])
        let disposeBag = DisposeBag()
        func tick(_ count: Int) {}

        func start(api: PriceAPI, id: Int, cache: AvatarCache, user: String, store: DraftStore, draft: String,
                   relay: BehaviorRelay<Int>, prices: Observable<Double>, chart: Chart) {
            // A stream, checked at one point of the chain
            api.refreshes()
                .diagnosed("feed refresh", contract: StreamContract(delivery: .mainQueue))
                .subscribe(onNext: { [weak self] in self?.items.accept($0) })
                .disposed(by: disposeBag)

            // The traits keep their type and get a default contract
            let profile = api.profile(id: id).diagnosed("profile")            // Single: exactly one value (.single)
            let avatar = cache.avatar(for: user).diagnosed("cached avatar")   // Maybe: at most one value, then termination
            let saving = store.save(draft).diagnosed("save draft")            // Completable: no value (.completable)
            let selection = relay.asInfallible().diagnosed("selection")       // Infallible: must not fail

            // A create closure, checked where it sends
            let upload = Observable<Double>.create(diagnosed: "upload") { observer in
                observer.onNext(0.5)
                observer.onNext(1)
                observer.onCompleted()
                return Disposables.create()
            }

            // The final subscriber
            prices.subscribe(diagnosed: "chart", onNext: chart.plot)
                .disposed(by: disposeBag)
            prices.subscribe(chart.asObserver().diagnosedObserver("chart"))
                .disposed(by: disposeBag)

            // Schedulers
            let ui = MainScheduler.instance.diagnosed("ui", expecting: .mainQueue)
            let io = ConcurrentDispatchQueueScheduler(qos: .utility).diagnosed("io", expecting: .offMainQueue)
            Observable<Int>.interval(.seconds(1), scheduler: io)
                .observe(on: ui)
                .subscribe(onNext: { [weak self] in self?.tick($0) })
                .disposed(by: disposeBag)

            _ = (profile, avatar, saving, selection, upload)
        }
    }
}
