import CReactiveDiagnostics

/// Tells whether code runs on the main queue.
///
/// "Main" means the main *queue*: under Swift Testing on Linux, blocks submitted to
/// `DispatchQueue.main` can run where `Thread.isMainThread` is `false`. A dispatch-specific
/// value set on the main queue follows the queue, not the thread;
/// code running directly on the process's initial thread (XCTest's test bodies on Linux)
/// counts as main too, since the main queue only ever drains there or is blocked by it.
///
/// ```swift
/// DispatchQueue.main.async { assert(MainQueue.isCurrent) }
/// DispatchQueue.global().async { assert(!MainQueue.isCurrent) }
/// ```
@_spi(Testing) public enum MainQueue {
    /// Installs the main-queue marker; called by the engine at start. Idempotent (and made on
    /// first use otherwise).
    public static func install() {
        rdiag_main_queue_mark()
    }

    /// Whether the caller is running on the main queue (or the process's initial thread).
    @inline(__always)
    public static var isCurrent: Bool {
        rdiag_main_queue_is_current() != 0
    }
}
