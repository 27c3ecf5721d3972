import Foundation

/// This file, for tests that check where findings point.
let appCodeFile = #filePath
@preconcurrency import RxRelay
@preconcurrency import RxSwift

// App code as RxSwift users write it, untouched by diagnostics: the hooks must find its
// leaks with no `.diagnosed()` anywhere.

/// The strong-self `DisposeBag` leak RxSwift users meet first: the view model owns a
/// never-ending subject and a bag, and its subscription's closure captures `self`
/// (self → bag → subscription → closure → self, and subject → observer → closure → self).
final class HeadlinesViewModel {
    let refreshes = PublishSubject<[String]>()
    private(set) var headlines: [String] = []
    private let disposeBag = DisposeBag()

    init() {
        // swift-format-ignore
        refreshes.subscribe(onNext: { headlines in self.headlines = headlines }).disposed(by: disposeBag)  // SITE: strong-self
    }

    /// Ends the subject (what a test does afterwards to free the cycle).
    func stop() {
        refreshes.onCompleted()
    }
}

/// The same view model done right: `[weak self]`, so releasing the model releases its bag,
/// which disposes the subscription.
final class WeakHeadlinesViewModel {
    let refreshes = PublishSubject<[String]>()
    private(set) var headlines: [String] = []
    private let disposeBag = DisposeBag()

    init() {
        refreshes.subscribe(onNext: { [weak self] headlines in self?.headlines = headlines }).disposed(by: disposeBag)
    }
}

/// A clock that ticks into a bag kept by someone who outlives the screen (a shared
/// coordinator): the interval is never disposed.
final class TickingClock {
    private(set) var ticks = 0

    func start(on scheduler: any SchedulerType, into bag: DisposeBag) {
        Observable<Int>.interval(.milliseconds(5), scheduler: scheduler)
            .subscribe(onNext: { [weak self] _ in self?.ticks += 1 })  // SITE: interval
            .disposed(by: bag)
    }
}

/// Subscriptions built on `subscribe(onNext:)` (RxCocoa's `bind(onNext:)` and
/// `drive(onNext:)` are too, but RxCocoa builds on Apple platforms only), into a bag that
/// outlives the test.
enum Followers {
    static func follow(_ values: PublishSubject<Int>, with owner: WeakHeadlinesViewModel, into bag: DisposeBag) {
        values.subscribe(with: owner, onNext: { owner, value in _ = (owner, value) }).disposed(by: bag)
    }

    static func follow(_ selection: BehaviorRelay<Int>, into bag: DisposeBag, _ show: @escaping (Int) -> Void) {
        selection.asInfallible().subscribe(onNext: show).disposed(by: bag)
    }
}
