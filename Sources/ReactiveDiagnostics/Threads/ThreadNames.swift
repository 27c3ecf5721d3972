import Foundation

/// A thread's real name, where the kernel kept only part of it.
///
/// Linux keeps a thread's name in the task's 16-byte `comm` field: 15 bytes and a NUL, and
/// `pthread_getname_np` can return no more. libdispatch names each worker thread after the root
/// queue it serves and, the label being longer, keeps its **last** 15 bytes:
/// `com.apple.root.default-qos` becomes `oot.default-qos`, `com.apple.root.default-qos.overcommit`
/// becomes `-qos.overcommit`. The full name is found again from what the thread is running: the
/// current dispatch queue's label when it ends with the kernel's name, else the one root-queue
/// label libdispatch could have cut it from, else Foundation's own record of a name it set.
/// A cut that fits several root queues (`-qos.overcommit` ends all six overcommit labels) is
/// not a name: the queue the thread runs says more.
///
/// ```swift
/// ThreadNames.fullName(kernel: "oot.default-qos", queueLabel: nil, foundationName: nil)
/// // "com.apple.root.default-qos"
/// ```
package enum ThreadNames {
    /// The bytes of a name the Linux kernel keeps (`TASK_COMM_LEN` less the NUL).
    package static let kernelLimit = 15

    /// The labels of libdispatch's root queues, after which it names its worker threads.
    package static let rootQueueLabels: [String] = {
        let classes = ["maintenance", "background", "utility", "default", "user-initiated", "user-interactive"]
        return classes.flatMap { ["com.apple.root.\($0)-qos", "com.apple.root.\($0)-qos.overcommit"] }
    }()

    /// The thread's name in full: `kernel` itself unless it may have been cut and something
    /// longer ends (or, for Foundation, starts) with it; `nil` for a cut that fits several
    /// root queues.
    package static func fullName(kernel: String, queueLabel: String?, foundationName: String?) -> String? {
        guard kernel.utf8.count >= kernelLimit else { return kernel }
        if let foundationName, foundationName.utf8.count > kernel.utf8.count,
            foundationName.hasSuffix(kernel) || foundationName.hasPrefix(kernel)
        {
            return foundationName
        }
        if let queueLabel, queueLabel.utf8.count > kernel.utf8.count, queueLabel.hasSuffix(kernel) {
            return queueLabel
        }
        let roots = rootQueueLabels.filter { $0.hasSuffix(kernel) }
        switch roots.count {
        case 0: return kernel
        case 1: return roots[0]
        default: return nil
        }
    }

    /// The queue worth naming beside the thread: a queue the app made, not the main queue (which
    /// findings flag anyway), not a root queue (a thread that runs no queue reports the default
    /// root queue) and not the thread's own name.
    package static func queue(label: String?, threadName: String?) -> String? {
        guard let label, !label.isEmpty, label != threadName, !label.hasPrefix("com.apple.root."),
            label != "com.apple.main-thread"  // "main queue" says it already
        else { return nil }
        return label
    }
}
