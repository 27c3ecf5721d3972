#if RxSwift  // the package trait RxSwift (Package.swift): without it, this module is empty
public import ReactiveDiagnostics
@preconcurrency public import RxSwift

extension ObservableType {
    /// `Observable.create` with the closure's observer checked: each subscription hands the
    /// closure a ``DiagnosedObserver`` in front of RxSwift's own.
    ///
    /// RxSwift's `create` silently drops what its closure sends after `onCompleted`,
    /// `onError` or dispose, so an operator placed after it (``diagnosed(_:contract:engine:)``)
    /// never sees those events. Checking the closure's observer catches them where they are
    /// sent:
    ///
    /// ```swift
    /// func upload(_ file: URL) -> Observable<Double> {
    ///     Observable.create(diagnosed: "upload") { observer in
    ///         let task = client.upload(file, progress: observer.onNext) { result in
    ///             switch result {
    ///             case .success: observer.onCompleted()
    ///             case .failure(let error): observer.onError(error)
    ///             }
    ///         }
    ///         return Disposables.create { task.cancel() }
    ///     }
    /// }
    /// // A progress callback after completion is now a `valueAfterTermination` finding.
    /// ```
    ///
    /// - Parameters:
    ///   - label: Names the stream in findings and in the report.
    ///   - contract: Value count, termination, failure and delivery-thread promises.
    ///   - engine: Where subscriptions and findings are recorded.
    ///   - subscribe: The `create` closure, called once per subscription.
    /// - Returns: The observable `Observable.create(subscribe)` would return.
    public static func create(
        diagnosed label: String, contract: StreamContract? = nil, engine: DiagnosticsEngine = .shared,
        _ subscribe: @escaping (AnyObserver<Element>) -> any Disposable
    ) -> Observable<Element> {
        Observable.create { observer in
            let checked = DiagnosedObserver<Element>(
                label: label, contract: contract, engine: engine, handlesErrors: true, handler: observer.on)
            let subscription = subscribe(checked.asObserver())
            return Disposables.create(checked, subscription)
        }
    }
}
#endif
