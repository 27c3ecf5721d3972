import Foundation

/// The breaking-news banner: shows the latest alert of a live `AsyncStream`.
///
/// The bug is the async twin of the feed's: `start()` loops over a stream that never finishes,
/// in a task nobody keeps or cancels, and the loop captures `self`. The task, the stream and the
/// banner live forever; nothing crashes, and the test's assertion holds.
public final class BreakingNewsBanner: @unchecked Sendable {
    // Unchecked: `shown` is guarded by `lock`; `task` is set once, by `start()`.
    private let lock = NSLock()
    private var shown: String?
    private let alerts: AsyncStream<String>
    private var task: Task<Void, Never>?

    public init(alerts: AsyncStream<String>) {
        self.alerts = alerts
    }

    deinit {
        task?.cancel()
    }

    /// The alert on screen.
    public var text: String? {
        lock.withLock { shown }
    }

    public func start() {
        if DemoVariant.fixesApplied {
            // Fixed: keep the task and cancel it with the banner (deinit), and capture self weakly
            // so that the banner can go away while the stream is still open.
            task = Task { [weak self, alerts] in
                for await alert in alerts {
                    self?.show(alert)
                }
            }
        } else {
            // Bug: a task nobody keeps, looping forever over a stream nobody finishes, holding self.
            Task {
                for await alert in alerts {
                    self.show(alert)
                }
            }
        }
    }

    private func show(_ alert: String) {
        lock.withLock { shown = alert }
    }
}
