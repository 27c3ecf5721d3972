import ReactiveDiagnostics
import RxDiagnostics
@preconcurrency import RxSwift

/// The classic RxSwift leak through a `.diagnosed()` stage: `subscribe(onNext: { self… })`
/// disposed by the owner's own bag.
final class DiagnosedStrongSelfViewModel {
    static let closureLine = #line + 8
    private(set) var headlines: [String] = []
    private let disposeBag = DisposeBag()

    init(refreshes: PublishSubject<[String]>, engine: DiagnosticsEngine) {
        refreshes
            .diagnosed("headlines", engine: engine)
            .map { $0.sorted() }
            .subscribe(onNext: { self.headlines = $0 })
            .disposed(by: disposeBag)
    }
}

/// The same through `subscribe(diagnosed:onNext:)`.
final class SubscribeDiagnosedViewModel {
    static let closureLine = #line + 6
    private(set) var headlines: [String] = []
    private let disposeBag = DisposeBag()

    init(refreshes: PublishSubject<[String]>, engine: DiagnosticsEngine) {
        refreshes
            .subscribe(diagnosed: "headlines", engine: engine, onNext: { self.headlines = $0 })
            .disposed(by: disposeBag)
    }
}

/// No `.diagnosed()` at all: found by `RxDiagnosticsHooks`. The operator's sink is held by
/// the disposable in the bag, so the bag closes the cycle.
final class HookedStrongSelfViewModel {
    static let closureLine = #line + 7
    private(set) var headlines: [String] = []
    private let disposeBag = DisposeBag()

    init(refreshes: PublishSubject<[String]>) {
        refreshes
            .map { $0.sorted() }
            .subscribe(onNext: { self.headlines = $0 })
            .disposed(by: disposeBag)
    }
}

/// Subscribed to a subject directly: RxSwift's disposable for it holds the subject weakly, so
/// the bag closes no cycle; the subject, held from outside, keeps the subscription alive.
final class SubjectHeldViewModel {
    private(set) var headlines: [String] = []
    private let disposeBag = DisposeBag()

    init(refreshes: PublishSubject<[String]>) {
        refreshes
            .subscribe(onNext: { self.headlines = $0 })
            .disposed(by: disposeBag)
    }
}

/// `[weak self]`: releasing the view model releases its bag, which disposes the subscription.
final class DiagnosedWeakSelfViewModel {
    private(set) var headlines: [String] = []
    private let disposeBag = DisposeBag()

    init(refreshes: PublishSubject<[String]>, engine: DiagnosticsEngine) {
        refreshes
            .diagnosed("headlines", engine: engine)
            .subscribe(onNext: { [weak self] in self?.headlines = $0 })
            .disposed(by: disposeBag)
    }
}

/// Subscriptions that last as long as the app: a static bag nobody empties.
enum AppLifetime {
    /// Never emptied.
    nonisolated(unsafe) static var disposeBag = DisposeBag()
}

/// Disposes its subscription by the app-wide bag: no cycle (the closure holds the view model
/// weakly), but the static bag keeps the subscription alive for good.
final class AppScopedViewModel {
    private(set) var headlines: [String] = []

    init(refreshes: PublishSubject<[String]>) {
        refreshes
            .map { $0.sorted() }
            .subscribe(onNext: { [weak self] in self?.headlines = $0 })
            .disposed(by: AppLifetime.disposeBag)
    }
}
