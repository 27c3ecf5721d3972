#if RxSwift  // the package trait RxSwift (Package.swift): without it, this module is empty
@_spi(Integration) import ReactiveDiagnostics
@preconcurrency import RxSwift

/// What the engine's retain-path walk needs to know about RxSwift.
enum RxRetainPaths {
    /// Observers, sinks and disposables hold each other while a subscription is live: a loop
    /// through them alone is how every subscription is built, not a retain cycle.
    private static let plumbing: Void = {
        DiagnosticsEngine.registerRetainPathPlumbing { type in
            type is any ObserverType.Type || type is any Disposable.Type
        }
    }()

    /// Registers RxSwift's plumbing types with the engine (once).
    static func registerPlumbing() {
        plumbing
    }
}
#endif
