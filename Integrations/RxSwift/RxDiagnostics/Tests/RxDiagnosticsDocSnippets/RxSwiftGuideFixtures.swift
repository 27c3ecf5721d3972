import Foundation
@preconcurrency import RxRelay
import RxDiagnostics
@preconcurrency import RxSwift

// Stand-ins for the app code Docs/RxSwift.md's snippets use.
extension RxSwiftGuide {
    /// Keeps the latest price; retains itself through its dispose bag (the guide's leak).
    final class PriceTicker {
        private(set) var latest: Int?
        private let disposeBag = DisposeBag()

        init(prices: Observable<Int>) {
            prices
                .diagnosed("price ticker")
                .subscribe(onNext: { self.latest = $0 })
                .disposed(by: disposeBag)
        }
    }

    struct PriceAPI {
        func refreshes() -> Observable<[String]> { .just(["AAPL"]) }
        func profile(id: Int) -> Single<String> { .just("profile \(id)") }
    }

    struct AvatarCache {
        func avatar(for user: String) -> Maybe<Data> { .empty() }
    }

    struct DraftStore {
        func save(_ draft: String) -> Completable { .empty() }
    }

    final class Chart: ObserverType {
        func plot(_ price: Double) {}
        func on(_ event: Event<Double>) {
            if case .next(let price) = event { plot(price) }
        }
    }
}
