import Foundation
import ReactiveDiagnosticsReport
import ReactiveDiagnosticsSymbolication
import _ReactiveDiagnosticsSupport

/// Appends every finding, as it is made, to a journal next to the report, so that a test
/// process that dies (`fatalError`, a trap, `SIGKILL`) still leaves what it found.
///
/// Each entry is one `write(2)` of one JSON line to a file opened with `O_APPEND`: once the
/// call returns the line is in the kernel, whatever happens to the process. The file is
/// created with the first finding (clean runs leave nothing) and removed once the final
/// report is written, which supersedes it. `reactive-diag` rebuilds a partial report from a
/// journal whose report is missing.
///
/// The thread that made a finding only writes it with its stacks *raw* (each frame's image
/// and offset, found in a cache of the process's image ranges): it is the app's thread, in the
/// middle of what the app does, and naming a stack can take milliseconds. A serial queue then
/// symbolizes the stacks and appends them again, named, with the finding's fingerprint; a
/// process that dies in between leaves raw stacks, which `reactive-diag` names from the
/// binaries (llvm-symbolizer) when it reads the journal.
final class CrashJournal: FindingObserver, Sendable {
    private struct State {
        var descriptor: Int32 = -1
        /// Bumped when the journal is discarded: naming work queued before does not write into
        /// the next journal.
        var generation = 0
        var stacks: StackTable
        var segments = ImageSegments()
        var converter: FindingConverter
        var failed = false
    }

    let path: String
    private unowned let engine: DiagnosticsEngine
    private let state: LockedValue<State>
    private let naming = DispatchQueue(label: "ReactiveDiagnostics.CrashJournal.naming", qos: .utility)

    init(engine: DiagnosticsEngine, path: String) {
        self.engine = engine
        self.path = path
        state = LockedValue(State(stacks: StackTable(engine: engine), converter: FindingConverter(engine: engine)))
    }

    func didRecord(_ finding: Finding) {
        let generation: Int? = state.withLock { state in
            guard open(&state) else { return nil }
            let before = Mark(state)
            let allocation = state.stacks.rawReference(finding.allocationStack, segments: &state.segments)
            let event = state.stacks.rawReference(finding.eventStack, segments: &state.segments)
            let related = state.stacks.rawReference(finding.relatedStack, segments: &state.segments)
            let stages = finding.chain.map { state.stacks.rawReference($0.allocationStack, segments: &state.segments) }
            let converted = state.converter.convert(
                finding, fingerprint: "", allocationStack: allocation, eventStack: event, relatedStack: related,
                chainStacks: stages)
            appendAdded(since: before, to: &state)
            append(.finding(converted), to: &state)
            return state.generation
        }
        guard let generation else { return }
        // The engine is alive while it records; the queued work keeps it so until it is done.
        let engine = self.engine
        naming.async { [self] in
            WorkInFlight.asOwnWork {
                name(
                    [finding.allocationStack, finding.eventStack, finding.relatedStack]
                        + finding.chain.map(\.allocationStack),
                    of: finding, generation, engine)
            }
        }
    }

    func didUpdate(_ finding: Finding) {
        let generation: Int? = state.withLock { state in
            guard state.descriptor >= 0 else { return nil }
            let before = Mark(state)
            let related = state.stacks.rawReference(finding.relatedStack, segments: &state.segments)
            appendAdded(since: before, to: &state)
            append(
                .update(
                    FindingUpdate(
                        id: finding.id, relatedStack: related,
                        otherThread: finding.otherThread.map(FindingConverter.thread))),
                to: &state)
            return state.generation
        }
        guard let generation else { return }
        let engine = self.engine
        naming.async { [self] in
            WorkInFlight.asOwnWork { name([finding.relatedStack], of: nil, generation, engine) }
        }
    }

    /// Waits until every stack journaled so far is named (for tests, and a report that wants
    /// the journal complete).
    func waitUntilNamed() {
        naming.sync {}
    }

    /// Symbolizes `stacks` off every lock, then appends them named, and `finding`'s fingerprint.
    private func name(_ stacks: [StackID], of finding: Finding?, _ generation: Int, _ engine: DiagnosticsEngine) {
        let wanted = stacks.filter(\.isCaptured)
        let named = state.withLock { state in wanted.filter { !state.stacks.isNamed($0) } }
            .map { ($0, engine.symbolize($0)) }
        let fingerprint = finding.map(engine.fingerprint(of:))
        state.withLock { state in
            guard state.descriptor >= 0, state.generation == generation else { return }
            let before = Mark(state)
            for (stack, symbolized) in named {
                state.stacks.add(symbolized, for: stack)
            }
            appendAdded(since: before, to: &state)
            if let finding, let fingerprint {
                append(.update(FindingUpdate(id: finding.id, fingerprint: fingerprint)), to: &state)
            }
        }
        // Their lines too, while the tests go on: the report at the end finds them cached.
        engine.nameAhead(wanted, linesOf: DiagnosticsEngine.resolvedCategories)
    }

    /// How many stacks and images the table held before an entry added some.
    private struct Mark {
        var stacks: Int
        var images: Int

        init(_ state: State) {
            stacks = state.stacks.stacks.count
            images = state.stacks.images.count
        }
    }

    /// Writes the images, then the stacks, that the table gained since `mark`.
    private func appendAdded(since mark: Mark, to state: inout State) {
        for image in state.stacks.images[mark.images...] {
            append(.image(image), to: &state)
        }
        for stack in state.stacks.stacks[mark.stacks...] {
            append(.stack(stack), to: &state)
        }
    }

    /// A test finished: journal it (only once the journal exists: a clean run writes nothing).
    func didFinish(_ test: TestRecord) {
        state.withLock { state in
            guard state.descriptor >= 0 else { return }
            append(.test(test), to: &state)
        }
    }

    /// The final report was written: the journal is no longer needed.
    func discard() {
        state.withLock { state in
            if state.descriptor >= 0 {
                close(state.descriptor)
                state.descriptor = -1
            }
            unlink(path)
            state.generation += 1
            state.stacks = StackTable(engine: engine)
            state.converter = FindingConverter(engine: engine)
        }
    }

    private func open(_ state: inout State) -> Bool {
        if state.descriptor >= 0 { return true }
        if state.failed { return false }
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        let descriptor = Foundation.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            state.failed = true
            StandardError.write(
                "ReactiveDiagnostics: cannot create crash journal \(path): \(String(cString: strerror(errno)))\n")
            return false
        }
        state.descriptor = descriptor
        var run = ReportBuilder.runInfo(engine: engine)
        run.completeness = .partial
        append(.run(run), to: &state)
        return true
    }

    private func append(_ entry: JournalEntry, to state: inout State) {
        let line = entry.jsonLine()
        line.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(state.descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }
}
