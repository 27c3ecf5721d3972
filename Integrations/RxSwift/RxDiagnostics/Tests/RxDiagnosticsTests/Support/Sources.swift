import ReactiveDiagnostics
import RxDiagnostics
@preconcurrency import RxSwift

/// A hand-written source that calls its observer directly, the way legacy wrappers and
/// adapters around callback APIs often do, without RxSwift's `create` sink in between
/// (which would drop what follows a terminal event). It replays `events` on subscribe and
/// keeps the observer so the test can send more, even after dispose.
final class HandWrittenSource<Element>: ObservableType {
    private let events: [Event<Element>]
    private(set) var observer: AnyObserver<Element>?
    private(set) var disposeCount = 0

    init(_ events: [Event<Element>] = []) {
        self.events = events
    }

    func subscribe<Observer: ObserverType>(_ observer: Observer) -> any Disposable where Observer.Element == Element {
        let observer = AnyObserver(observer)
        self.observer = observer
        for event in events {
            observer.on(event)
        }
        return Disposables.create { [weak self] in self?.disposeCount += 1 }
    }
}

/// A view model that subscribes to a never-ending price stream and stores the
/// subscription in its own `DisposeBag`.
final class PriceTicker {
    private let disposeBag = DisposeBag()
    private(set) var latest = 0

    /// - Parameter retainsItself: `true` reproduces the classic leak: the closure captures
    ///   `self` strongly, so `self` → bag → subscription → closure → `self`.
    init(prices: Observable<Int>, label: String, engine: DiagnosticsEngine, retainsItself: Bool) {
        let diagnosed = prices.diagnosed(label, engine: engine)
        if retainsItself {
            diagnosed.subscribe(onNext: { price in self.latest = price }).disposed(by: disposeBag)
        } else {
            diagnosed.subscribe(onNext: { [weak self] price in self?.latest = price }).disposed(by: disposeBag)
        }
    }
}

/// An error for tests.
struct TestFailure: Error, Equatable, CustomStringConvertible {
    var reason: String
    var description: String { "TestFailure(\(reason))" }
}
