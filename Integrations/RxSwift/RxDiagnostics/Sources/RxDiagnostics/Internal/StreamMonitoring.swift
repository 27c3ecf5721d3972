#if RxSwift  // the package trait RxSwift (Package.swift): without it, this module is empty
@_spi(Integration) import ReactiveDiagnostics

/// How RxSwift streams are monitored: no demand, no subscription signal.
enum StreamMonitoring {
    /// RxSwift has neither back-pressure nor an `onSubscribe` event.
    static let options: StreamMonitor.Options = {
        RxRetainPaths.registerPlumbing()
        return StreamMonitor.Options(tracksDemand: false, expectsSubscription: false)
    }()

    /// A monitor for a subscription being made now (its allocation stack is captured here).
    ///
    /// When the subscribing thread knows no test (RxSwift subscribed on a scheduler that is
    /// not diagnostic), the subscription is attributed to `fallbackTest`, the test that
    /// built the operator.
    static func makeMonitor(
        engine: DiagnosticsEngine, label: DiagnosticLabel, contract: StreamContract?, fallbackTest: TestIdentity
    ) -> StreamMonitor {
        if fallbackTest.isKnown, !engine.currentTest().isKnown {
            return TestIdentity.withThreadTest(fallbackTest) {
                engine.makeStreamMonitor(label: label, contract: contract, options: options)
            }
        }
        return engine.makeStreamMonitor(label: label, contract: contract, options: options)
    }
}
#endif
