import ReactiveDiagnostics
import Synchronization

/// Keeps `subscription` registered to the end of the process: what the guides' first failing
/// tests use to leak a subscription on purpose.
func keep(_ subscription: ResourceToken) {
    kept.withLock { $0.append(subscription) }
}

private let kept = Mutex<[ResourceToken]>([])
