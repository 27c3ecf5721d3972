import Foundation
import ReactiveDiagnosticsReport
import _ReactiveDiagnosticsSupport

/// Appends every finding, as it is made, to a journal next to the report, so that a test
/// process that dies (`fatalError`, a trap, `SIGKILL`) still leaves what it found.
///
/// Each entry is one `write(2)` of one JSON line to a file opened with `O_APPEND`: once the
/// call returns the line is in the kernel, whatever happens to the process. The file is
/// created with the first finding (clean runs leave nothing) and removed once the final
/// report is written, which supersedes it. `reactive-diag` rebuilds a partial report from a
/// journal whose report is missing.
final class CrashJournal: FindingObserver, Sendable {
    private struct State {
        var descriptor: Int32 = -1
        var stacks: StackTable
        var converter: FindingConverter
        var failed = false
    }

    let path: String
    private unowned let engine: DiagnosticsEngine
    private let state: LockedValue<State>

    init(engine: DiagnosticsEngine, path: String) {
        self.engine = engine
        self.path = path
        state = LockedValue(State(stacks: StackTable(engine: engine), converter: FindingConverter(engine: engine)))
    }

    func didRecord(_ finding: Finding) {
        state.withLock { state in
            guard open(&state) else { return }
            let stacksBefore = state.stacks.stacks.count
            let imagesBefore = state.stacks.images.count
            let converted = state.converter.convert(finding, stacks: &state.stacks)
            for image in state.stacks.images[imagesBefore...] {
                append(.image(image), to: &state)
            }
            for stack in state.stacks.stacks[stacksBefore...] {
                append(.stack(stack), to: &state)
            }
            append(.finding(converted), to: &state)
        }
    }

    func didUpdate(_ finding: Finding) {
        state.withLock { state in
            guard state.descriptor >= 0 else { return }
            let stacksBefore = state.stacks.stacks.count
            let imagesBefore = state.stacks.images.count
            let related = state.stacks.reference(finding.relatedStack)
            for image in state.stacks.images[imagesBefore...] {
                append(.image(image), to: &state)
            }
            for stack in state.stacks.stacks[stacksBefore...] {
                append(.stack(stack), to: &state)
            }
            append(
                .update(
                    FindingUpdate(
                        id: finding.id, relatedStack: related,
                        otherThread: finding.otherThread.map(FindingConverter.thread))),
                to: &state)
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
