import OpenCombineShim
import ReactiveDiagnostics
import ReactiveDiagnosticsRetainPaths

/// What the engine's retain-path walk needs to know about Combine.
enum CombineRetainPaths {
    /// Subscribers and subscriptions hold each other while a stream is live: a loop through
    /// them alone is how every subscription is built, not a retain cycle.
    private static let plumbing: Void = {
        RetainPathPlumbing.register { type in
            type is any Subscriber.Type || type is any Subscription.Type
        }
    }()

    /// Registers Combine's plumbing types with the engine (once).
    static func registerPlumbing() {
        plumbing
    }
}
