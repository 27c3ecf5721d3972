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
    /// their frames of `categories`, into the caches that the presentation of a finding and the
    /// report read. Blocks while it works: the crash journal calls it on its own queue, once it
    /// has written a finding's stacks named, so that the report at the end of the run finds
    /// them with their lines rather than reading every file's debug information then.
    func nameAhead(_ stacks: [StackID], linesOf categories: Set<FrameCategory>) {
        var table = StackTable(engine: self)
        let named = Set(stacks.compactMap { table.reference($0) })
        guard !named.isEmpty, configuration.resolvesSourceLines, !categories.isEmpty else { return }
        // The question the presentation and the report ask, so that their answers are cached.
        var report = DiagnosticsReport(
            run: RunInfo(processName: "", processID: 0, startTime: startDate, endTime: startDate),
            stacks: table.stacks, images: table.images)
        _ = report.fillSourceLines(
            with: sourceLineResolver, stacks: named, categories: categories, verifyBuildIDs: false)
    }

    /// ``nameAhead(_:linesOf:)`` on another thread, as the library's own work; `nil` when there
    /// is nothing to name.
    ///
    /// A leak's explanation has two independent halves: where (its stacks named, their lines
    /// found, its fingerprint) and why (a walk of the heap for what holds it). The checkpoint
    /// starts the first here before it walks the heap and waits on the returned group before it
    /// presents the findings: on a machine with a second core the first half then costs the
    /// test nothing beyond the walk (in a debug build, each new source file's debug information
    /// is read on its first line). Without a second core the work is the same, in another order.
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
            WorkInFlight.asOwnWork { nameAhead(wanted, linesOf: categories) }
        }
        return group
    }
}
