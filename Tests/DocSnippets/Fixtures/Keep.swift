import ReactiveDiagnostics
import Synchronization

/// Keeps `monitor` alive to the end of the process: what the guides' first failing tests use to
/// leak a subscription on purpose.
func keep(_ monitor: StreamMonitor) {
    kept.withLock { $0.append(monitor) }
}

private let kept = Mutex<[StreamMonitor]>([])
