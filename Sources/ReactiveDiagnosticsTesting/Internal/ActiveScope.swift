import ReactiveDiagnostics
import _ReactiveDiagnosticsSupport

/// The diagnosed scope of the running test case, so that a second `.diagnosed` trait on the
/// same test (one on the suite, one on the test) adds its options instead of checking twice.
final class ActiveScope: Sendable {
    @TaskLocal static var current: ActiveScope?

    private let state: LockedValue<TestOptions>

    init(_ options: TestOptions) {
        state = LockedValue(options)
    }

    /// The merged options: every allowance, and the longest settle time.
    var options: TestOptions {
        state.withLock { $0 }
    }

    /// Adds another trait's options.
    func merge(_ other: TestOptions) {
        state.withLock { options in
            options.allowedKinds.formUnion(other.allowedKinds)
            if let settle = other.settleTime {
                options.settleTime = max(options.settleTime ?? settle, settle)
            }
        }
    }
}
