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

    /// The strong-self DisposeBag leak, left as it is.
    final class HeadlinesViewModel {
        let refreshes = PublishSubject<[String]>()
        private(set) var headlines: [String] = []
        private let disposeBag = DisposeBag()

        init() {
            refreshes.subscribe(onNext: { self.headlines = $0 }).disposed(by: disposeBag)
        }
    }

    /// Ticks into a bag someone else keeps.
    final class TickingClock {
        private(set) var ticks = 0

        func start(on scheduler: any SchedulerType, into bag: DisposeBag) {
            Observable<Int>.interval(.seconds(1), scheduler: scheduler)
                .subscribe(onNext: { [weak self] _ in self?.ticks += 1 })
                .disposed(by: bag)
        }
    }

    /// Outlives every screen. Unchecked: its bag is only added to, which DisposeBag locks.
    final class Coordinator: @unchecked Sendable {
        let disposeBag = DisposeBag()
    }

    static let coordinator = Coordinator()

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
