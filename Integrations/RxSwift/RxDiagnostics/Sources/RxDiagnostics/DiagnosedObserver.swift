#if RxSwift  // the package trait RxSwift (Package.swift): without it, this module is empty
public import ReactiveDiagnostics
@preconcurrency public import RxSwift

/// An observer that checks the events it receives: the final subscriber's side of
/// ``DiagnosedObservable``, for `subscribe(_:)` and for the observer of `Observable.create`.
///
/// Creating one registers a live subscription with the creating stack; it ends when the
/// observer receives `error` or `completed`, when it is disposed (``dispose()``), or when it
/// is deallocated (RxSwift releases an observer when its subscription is disposed). Every
/// event is checked against `next* (error | completed)`, serial and re-entrant delivery and
/// the optional `StreamContract`, then forwarded unchanged.
///
/// ```swift
/// @Test func uploadReportsProgressThenFinishes() {
///     var progress: [Double] = []
///     let observer = DiagnosedObserver<Double>(
///         "upload progress", contract: StreamContract(termination: .required), onNext: { progress.append($0) })
///     let subscription = uploader.progress(for: file).subscribe(observer)
///     defer { subscription.dispose() }
///     // … a value after completion, or two threads at once, is now a finding of this test
/// }
/// ```
///
/// Use one observer per subscription: subscribed twice, the two streams' events interleave
/// and look like a broken grammar (which, for an RxSwift observer, it is).
public final class DiagnosedObserver<Element>: ObserverType, Disposable {
    private let handler: (Event<Element>) -> Void
    private let handlesErrors: Bool

    /// The grammar checker of the subscription this observer receives.
    package let monitor: StreamMonitor

    /// Checks the events on their way to `observer`.
    ///
    /// - Parameters:
    ///   - label: Names the stream in findings and in the report.
    ///   - contract: Value count, termination, failure and delivery-thread promises.
    ///   - engine: Where the subscription and findings are recorded.
    ///   - observer: Receives every event, unchanged.
    public convenience init<Observer: ObserverType>(
        _ label: String, contract: StreamContract? = nil, engine: DiagnosticsEngine = .shared,
        wrapping observer: Observer
    ) where Observer.Element == Element {
        self.init(label: label, contract: contract, engine: engine, handlesErrors: true, handler: observer.on)
    }

    /// Checks the events on their way to the closures.
    ///
    /// An error arriving without an `onError` closure is an `unhandledError` finding whose
    /// allocation stack is where this observer was made (RxSwift would only print it, and
    /// only in debug builds).
    ///
    /// - Parameters:
    ///   - label: Names the stream in findings and in the report.
    ///   - contract: Value count, termination, failure and delivery-thread promises.
    ///   - engine: Where the subscription and findings are recorded.
    ///   - onNext: Called for each element.
    ///   - onError: Called for an error; `nil` turns an error into a finding.
    ///   - onCompleted: Called for completion.
    public convenience init(
        _ label: String, contract: StreamContract? = nil, engine: DiagnosticsEngine = .shared,
        onNext: ((Element) -> Void)? = nil, onError: ((any Error) -> Void)? = nil, onCompleted: (() -> Void)? = nil
    ) {
        self.init(label: label, contract: contract, engine: engine, handlesErrors: onError != nil) { event in
            switch event {
            case .next(let element): onNext?(element)
            case .error(let error): onError?(error)
            case .completed: onCompleted?()
            }
        }
    }

    /// The one initializer that registers the subscription: the allocation stack is
    /// captured here, so every caller is a frame of this module, dropped from the stack.
    init(
        label: String, contract: StreamContract?, engine: DiagnosticsEngine, handlesErrors: Bool,
        handler: @escaping (Event<Element>) -> Void
    ) {
        self.handler = handler
        self.handlesErrors = handlesErrors
        monitor = StreamMonitoring.makeMonitor(
            engine: engine, label: DiagnosticLabel(label), contract: contract, fallbackTest: .none)
        // If the subscription leaks, the retain cycle is looked for from this observer, which
        // holds the closures.
        monitor.setRetainPathAnchor(self)
    }

    /// Checks `event`, then forwards it (outside every lock).
    public func on(_ event: Event<Element>) {
        switch event {
        case .next:
            let delivery = monitor.willDeliverValue()
            handler(event)
            monitor.didDeliverValue(delivery)
        case .error(let error):
            let description = String(describing: error)
            let delivery = monitor.willTerminate(failure: description)
            if !handlesErrors {
                UnhandledErrors.record(
                    description, label: monitor.label.name, recorder: monitor.recorder,
                    test: monitor.test, allocationStack: monitor.allocationStack)
            }
            handler(event)
            monitor.didTerminate(delivery)
        case .completed:
            let delivery = monitor.willTerminate(failure: nil)
            handler(event)
            monitor.didTerminate(delivery)
        }
    }

    /// Records that the subscription was disposed: it is no longer live, and events that
    /// still arrive are reported as arriving after dispose.
    public func dispose() {
        monitor.cancelled(checkPremature: false)
    }
}

extension ObserverType {
    /// Wraps this observer in a ``DiagnosedObserver`` that checks what it receives.
    ///
    /// ```swift
    /// let subscription = prices.subscribe(chart.asObserver().diagnosedObserver("chart prices"))
    /// ```
    ///
    /// (Not `diagnosed`: subjects are observers and observables, and there `diagnosed`
    /// means the observable side.)
    public func diagnosedObserver(
        _ label: String, contract: StreamContract? = nil, engine: DiagnosticsEngine = .shared
    ) -> DiagnosedObserver<Element> {
        DiagnosedObserver(label, contract: contract, engine: engine, wrapping: self)
    }
}
#endif
