@preconcurrency import RxSwift

/// A view model as RxSwift apps write it: it subscribes to a subject it owns, into its own bag.
/// The closure captures `self` weakly, so releasing the model releases the bag, which disposes
/// the subscription. With `{ self.headlines = $0 }` instead, model → bag → subscription →
/// closure → model is a cycle, and the test below fails with a `leakedSubscription` finding at
/// the `subscribe(onNext:)` line.
public final class HeadlinesViewModel {
    /// Headlines from the network layer.
    public let refreshes = PublishSubject<[String]>()
    /// What the screen shows.
    public private(set) var headlines: [String] = []
    private let disposeBag = DisposeBag()

    /// Starts listening to `refreshes`.
    public init() {
        refreshes.subscribe(onNext: { [weak self] headlines in self?.headlines = headlines }).disposed(by: disposeBag)
    }
}
