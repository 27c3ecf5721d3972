#if RxSwift  // the package trait RxSwift (Package.swift): without it, this module is empty
import ReactiveDiagnostics
@preconcurrency import RxSwift

/// One subscription of a ``DiagnosedObservable``: the observer of the source and the
/// disposable handed downstream.
///
/// It holds no lock: the monitor's checks are lock-free and every event is forwarded after
/// them, so user code never runs under a lock of ours. Like every RxSwift sink, it is kept
/// alive by the source while the subscription runs (source → sink → upstream disposable is
/// the subscription's own cycle); disposing it or a terminal event disposes the upstream
/// subscription, which breaks that cycle.
final class DiagnosedSink<Observer: ObserverType>: ObserverType, Disposable {
    typealias Element = Observer.Element

    private let observer: Observer
    private let monitor: StreamMonitor
    private let upstream = SingleAssignmentDisposable()

    init(observer: Observer, monitor: StreamMonitor) {
        self.observer = observer
        self.monitor = monitor
    }

    /// Subscribes to the source. The source may complete before `subscribe` returns; the
    /// single-assignment disposable then disposes the subscription as soon as it is set.
    func run<Source: ObservableType>(_ source: Source) where Source.Element == Element {
        upstream.setDisposable(source.subscribe(self))
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next:
            let delivery = monitor.willDeliverValue()
            observer.on(event)
            monitor.didDeliverValue(delivery)
        case .error(let error):
            let delivery = monitor.willTerminate(failure: String(describing: error))
            observer.on(event)
            monitor.didTerminate(delivery)
            upstream.dispose()
        case .completed:
            let delivery = monitor.willTerminate(failure: nil)
            observer.on(event)
            monitor.didTerminate(delivery)
            upstream.dispose()
        }
    }

    func dispose() {
        // Marked first: an event the source is still delivering on another thread is then
        // seen as arriving after dispose (legal while in flight, reported as information).
        monitor.cancelled(checkPremature: false)
        upstream.dispose()
    }
}
#endif
