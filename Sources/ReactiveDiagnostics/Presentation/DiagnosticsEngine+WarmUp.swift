package import Foundation
import ReactiveDiagnosticsReport
import ReactiveDiagnosticsSymbolication
import Synchronization

extension DiagnosticsEngine {
    private static let preparedToName = Atomic<Bool>(false)

    /// Reads, once per process and on a thread of its own, what naming a stack of the binary
    /// the library is linked into needs: its function symbols and the index of its line
    /// programs (a few milliseconds for a large debug test binary). Called when the first test
    /// begins, so that the first finding, which needs both at once, does not wait for them.
    func prepareToNameStacks() {
        guard configuration.isEnabled, !Self.preparedToName.exchange(true, ordering: .relaxed) else { return }
        let resolver = configuration.resolvesSourceLines && sourceLineResolver.claimWarmUp() ? sourceLineResolver : nil
        // The image this code is in: the test binary, where Swift packages link statically.
        let image = UInt(bitPattern: #dsohandle)
        Thread.detachNewThread {
            WorkInFlight.asOwnWork {
                ProcedureSymbol.prepareImage(containing: image)
                resolver?.warmUp()
            }
        }
    }

    /// One thread for every engine: warm-ups are short and come one checkpoint at a time.
    private static let warmUpQueue = DispatchQueue(
        label: "ReactiveDiagnostics.warm-up", qos: .userInitiated)

    /// Names `stacks` (each frame's symbol, and whose code it is) and resolves the lines of
    /// their frames of `categories` on another thread, into the caches that the presentation of
    /// a finding and the report read.
    ///
    /// Two uses. A leak's explanation has two independent halves: where (its stacks named, their
    /// lines found, its fingerprint) and why (a walk of the heap for what holds it); the
    /// checkpoint starts the first here before it walks the heap, and waits on the returned
    /// group before it presents the findings. And a recorded finding's stacks are named here
    /// with the lines the report gives them, while the tests go on, rather than all at the end
    /// of the run. On a machine with a second core that work costs the tests nothing but the
    /// walk; in a debug build the first finding of a process pays for opening the binary's
    /// symbol and line tables, and each new source file for reading its debug information.
    /// Without a second core the work is the same, done in another order. `nil` when there is
    /// nothing to name.
    ///
    /// ```swift
    /// let naming = warmUp(sites.map(\.stack), linesOf: [.user])
    /// let explained = explainRetention(ofSites: tokens)
    /// naming?.wait()
    /// ```
    package func warmUp(_ stacks: [StackID], linesOf categories: Set<FrameCategory>) -> DispatchGroup? {
        let wanted = stacks.filter(\.isCaptured)
        guard !wanted.isEmpty else { return nil }
        let group = DispatchGroup()
        Self.warmUpQueue.async(group: group) { [self] in
            WorkInFlight.asOwnWork {
                var table = StackTable(engine: self)
                let named = Set(wanted.compactMap { table.reference($0) })
                guard configuration.resolvesSourceLines, !categories.isEmpty else { return }
                // The question the presentation and the report ask, so that their answers are
                // the cached ones.
                var report = DiagnosticsReport(
                    run: RunInfo(processName: "", processID: 0, startTime: startDate, endTime: startDate),
                    stacks: table.stacks, images: table.images)
                _ = report.fillSourceLines(
                    with: sourceLineResolver, stacks: named, categories: categories, verifyBuildIDs: false)
            }
        }
        return group
    }
}
