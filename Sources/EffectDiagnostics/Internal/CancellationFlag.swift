import Synchronization

/// Set once by ``EffectRun/cancel()``; read before forwarding an action, so cancellation
/// drops late actions whether or not diagnostics are enabled.
final class CancellationFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    var isCancelled: Bool {
        flag.load(ordering: .acquiring)
    }

    func cancel() {
        flag.store(true, ordering: .releasing)
    }
}
