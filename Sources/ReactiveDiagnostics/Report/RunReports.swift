package import Foundation
import Synchronization
import _ReactiveDiagnosticsSupport

/// The engines whose reports are written when the run ends.
///
/// Swift Testing has no end-of-run hook and XCTest's `testBundleDidFinish` only fires under
/// XCTest, so the first engine registered also registers one `atexit` handler. Writing is
/// idempotent: the report is rebuilt from the engine's latest state and written atomically
/// over the previous one, unless the file already holds exactly that state (then neither the
/// file nor the summary is written again). Either glue module, or both in one process, may
/// write: nothing is lost and nothing is counted twice.
package enum RunReports {
    private static let engines = LockedValue<[DiagnosticsEngine]>([])
    private static let registeredAtExit = Atomic<Bool>(false)

    /// Adds an engine whose report is written at the end of the run (once per engine).
    package static func register(_ engine: DiagnosticsEngine) {
        engines.withLock { list in
            if !list.contains(where: { $0 === engine }) {
                list.append(engine)
            }
        }
        if !registeredAtExit.exchange(true, ordering: .acquiringAndReleasing) {
            atexit { _ = RunReports.writeAll() }
        }
    }

    /// Writes the report of every registered engine whose configuration writes reports;
    /// returns the files written.
    @discardableResult
    package static func writeAll() -> [URL] {
        engines.withLock { $0 }.filter(\.configuration.writesReport).compactMap { write($0) }
    }

    /// Writes one engine's report (and its summary on standard error) unless the file at its
    /// report path already describes the current state. Returns the path written, if any.
    @discardableResult
    package static func write(_ engine: DiagnosticsEngine) -> URL? {
        do {
            return try engine.writeReportIfChanged()
        } catch {
            FileHandle.standardError.write(
                Data(
                    "ReactiveDiagnostics: cannot write the report to \(engine.configuration.resolvedReportPath): \(error)\n"
                        .utf8))
            return nil
        }
    }

    /// Whether `existing` is `fresh` apart from its end time.
    package static func isCurrent(_ existing: DiagnosticsReport, comparedWith fresh: DiagnosticsReport) -> Bool {
        var existing = existing
        existing.run.endTime = fresh.run.endTime
        return existing == fresh
    }
}
