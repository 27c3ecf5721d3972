#if RxSwift  // the package trait RxSwift (Package.swift): without it, this module is empty
public import ReactiveDiagnostics
@preconcurrency public import RxSwift

/// An observable that checks every subscription to its source: the transparent RxSwift
/// operator behind ``RxSwift/ObservableType/diagnosed(_:contract:engine:)``.
///
/// Each `subscribe` registers a live subscription in the engine's ledger, with the stack of
/// the code that subscribed, until the stream completes, fails or is disposed. Every event
/// on its way downstream goes through the grammar checker: `next* (error | completed)`,
/// serial delivery (never two threads at once), re-entrant delivery on one thread (RxSwift's
/// "Reentrancy anomaly"), events after dispose, and the optional `StreamContract`. Events
/// are forwarded unchanged, outside every lock; findings go to the engine.
///
/// ```swift
/// final class FeedViewModel {
///     let items = BehaviorRelay<[Item]>(value: [])
///     private let disposeBag = DisposeBag()
///
///     init(api: FeedAPI) {
///         api.refreshes()
///             .diagnosed("feed refresh", contract: StreamContract(delivery: .mainQueue))
///             .subscribe(onNext: { [weak self] in self?.items.accept($0) })
///             .disposed(by: disposeBag)
///     }
/// }
/// ```
///
/// In a test that finishes with the subscription still alive, the engine reports a
/// `leakedSubscription` labelled `feed refresh` whose allocation stack points at `init`.
public struct DiagnosedObservable<Source: ObservableType>: ObservableType {
    /// The element type, the source's.
    public typealias Element = Source.Element

    /// The observable being checked.
    public let source: Source
    /// The label of every subscription's findings and ledger entries.
    public let label: DiagnosticLabel
    /// What each subscription promises, if anything beyond the grammar.
    public let contract: StreamContract?
    /// The engine that records subscriptions and findings.
    public let engine: DiagnosticsEngine

    /// The test that built the operator: subscriptions made on threads that know no test
    /// (a `subscribe(on:)` scheduler that is not diagnostic) are attributed to it.
    let assemblyTest: TestIdentity

    /// Wraps `source`. ``RxSwift/ObservableType/diagnosed(_:contract:engine:)`` does this and
    /// returns the result as an `Observable`; use the initializer to keep the concrete type
    /// (one RxSwift sink less per subscription).
    public init(source: Source, label: String, contract: StreamContract? = nil, engine: DiagnosticsEngine = .shared) {
        self.source = source
        self.label = DiagnosticLabel(label)
        self.contract = contract
        self.engine = engine
        assemblyTest = engine.currentTest()
    }

    /// Subscribes `observer` through a checking sink; the sink is also the disposable
    /// returned, and disposing it disposes the subscription to the source.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> any Disposable
    where Observer.Element == Element {
        guard engine.isEnabled else {
            return source.subscribe(observer)
        }
        let monitor = StreamMonitoring.makeMonitor(
            engine: engine, label: label, contract: contract, fallbackTest: assemblyTest)
        let sink = DiagnosedSink(observer: observer, monitor: monitor)
        // If the subscription leaks, the retain cycle is looked for from this sink.
        monitor.setRetainPathAnchor(sink)
        sink.run(source)
        return sink
    }
}

extension ObservableType {
    /// Checks every subscription to this observable: a live resource with the subscribing
    /// stack until it ends, and every event against the stream grammar and `contract`.
    ///
    /// ```swift
    /// session.rx.data(request: request)
    ///     .diagnosed("avatar download", contract: .single)
    ///     .observe(on: MainScheduler.instance)
    ///     .subscribe(onNext: { [weak self] in self?.avatar = UIImage(data: $0) })
    ///     .disposed(by: disposeBag)
    /// ```
    ///
    /// Like every RxSwift operator it returns an `Observable`: a ``DiagnosedObservable`` seen
    /// through `asObservable()`. The checks run in the ``DiagnosedObservable``'s sink, before
    /// RxSwift's own sinks downstream, which drop events after a terminal event as usual.
    ///
    /// The operator sees the events that reach it: RxSwift's own sources (`create`,
    /// subjects) already drop events after a terminal event or dispose, so to catch a
    /// `create` closure that emits after `onCompleted`, use
    /// ``RxSwift/ObservableType/create(diagnosed:contract:engine:_:)`` instead.
    ///
    /// - Parameters:
    ///   - label: Names the stream in findings and in the report.
    ///   - contract: Value count, termination, failure and delivery-thread promises; `nil`
    ///     checks the grammar only.
    ///   - engine: Where subscriptions and findings are recorded.
    /// - Returns: An observable that behaves exactly like this one.
    public func diagnosed(
        _ label: String, contract: StreamContract? = nil, engine: DiagnosticsEngine = .shared
    ) -> Observable<Element> {
        DiagnosedObservable(source: self, label: label, contract: contract, engine: engine).asObservable()
    }
}
#endif
