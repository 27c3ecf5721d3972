#if RxSwift  // the package trait RxSwift (Package.swift): without it, this module is empty
public import ReactiveDiagnostics
@preconcurrency public import RxSwift

extension ObservableType {
    /// Subscribes closures through a ``DiagnosedObserver``: `subscribe(onNext:…)` with the
    /// subscription checked at the final subscriber.
    ///
    /// ```swift
    /// viewModel.title
    ///     .subscribe(diagnosed: "title label", contract: StreamContract(delivery: .mainQueue),
    ///                onNext: { [weak label] in label?.text = $0 })
    ///     .disposed(by: disposeBag)
    /// ```
    ///
    /// Like RxSwift's `subscribe(onNext:onError:onCompleted:onDisposed:)`, `onDisposed` runs
    /// once, on a terminal event or on dispose. An error without `onError` becomes an
    /// `unhandledError` finding pointing at this call instead of RxSwift's debug print.
    ///
    /// - Returns: The subscription; disposing it also ends the observer's live subscription.
    public func subscribe(
        diagnosed label: String, contract: StreamContract? = nil, engine: DiagnosticsEngine = .shared,
        onNext: ((Element) -> Void)? = nil, onError: ((any Error) -> Void)? = nil,
        onCompleted: (() -> Void)? = nil, onDisposed: (() -> Void)? = nil
    ) -> any Disposable {
        let disposed: any Disposable = onDisposed.map { Disposables.create(with: $0) } ?? Disposables.create()
        let observer = DiagnosedObserver<Element>(
            label: label, contract: contract, engine: engine, handlesErrors: onError != nil
        ) { event in
            switch event {
            case .next(let element):
                onNext?(element)
            case .error(let error):
                onError?(error)
                disposed.dispose()
            case .completed:
                onCompleted?()
                disposed.dispose()
            }
        }
        let subscription = subscribe(observer)
        return Disposables.create(observer, subscription, disposed)
    }
}
#endif
