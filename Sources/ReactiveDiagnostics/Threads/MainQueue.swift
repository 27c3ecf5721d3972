import CReactiveDiagnostics
import Dispatch

/// Tells whether code runs on the main queue.
///
/// "Main" means the main *queue*: under Swift Testing on Linux, blocks submitted to
/// `DispatchQueue.main` can run where `Thread.isMainThread` is `false`. A
/// `DispatchSpecificKey` set on `DispatchQueue.main` follows the queue, not the thread;
/// code running directly on the process's initial thread (XCTest's test bodies on Linux)
/// counts as main too, since the main queue only ever drains there or is blocked by it.
///
/// ```swift
/// DispatchQueue.main.async { assert(MainQueue.isCurrent) }
/// DispatchQueue.global().async { assert(!MainQueue.isCurrent) }
/// ```
public enum MainQueue {
    private static let key = DispatchSpecificKey<UInt8>()

    private static let installed: Bool = {
        DispatchQueue.main.setSpecific(key: key, value: 1)
        return true
    }()

    /// Installs the main-queue marker; called by the engine at start. Idempotent.
    public static func install() {
        _ = installed
    }

    /// The key as Dispatch knows it (what `getSpecific` passes to `dispatch_get_specific`): an
    /// address only compared, never dereferenced.
    private nonisolated(unsafe) static let keyPointer = UnsafeRawPointer(Unmanaged.passUnretained(key).toOpaque())

    /// Whether the caller is running on the main queue (or the process's initial thread).
    public static var isCurrent: Bool {
        _ = installed
        return rdiag_is_process_main_thread() != 0 || rdiag_queue_has_specific(keyPointer) != 0
    }
}
