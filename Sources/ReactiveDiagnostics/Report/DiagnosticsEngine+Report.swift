public import Foundation
import Synchronization
import ReactiveDiagnosticsReport
import _ReactiveDiagnosticsSupport

extension DiagnosticsEngine {
    /// Builds the report: findings with fingerprints, ledger totals and live sites,
    /// scheduler statistics, and every referenced stack symbolized.
    public func makeReport(completeness: RunInfo.Completeness = .final) -> DiagnosticsReport {
        ReportBuilder(engine: self).build(completeness: completeness)
    }

    /// Writes the report atomically (a temporary file renamed over the destination, so a
    /// reader never sees half a report) and prints a short summary on standard error.
    ///
    /// - Parameter path: Where to write; defaults to the configuration's report path
    ///   (`.build/reactive-diagnostics/report-%n-%p.json`). Writing there also removes the
    ///   crash journal, which the report supersedes.
    /// - Returns: The URL written.
    @discardableResult
    public func writeReport(to path: String? = nil) throws -> URL {
        let report = makeReport()
        let configured = configuration.resolvedReportPath
        let url = URL(fileURLWithPath: path ?? configured)
        try ReportFileWriter.write(report.encoded(), to: url)
        if path == nil || path == configured {
            lastWrittenReport.withLock { $0 = (configured, report) }
            // The report now holds everything the crash journal did.
            journal.withLock { $0 }?.discard()
        }
        if configuration.printsSummary {
            StandardError.write(ReportSummary.text(for: report, path: url.path))
        }
        return url
    }
}

extension DiagnosticsEngine {
    /// Writes the report to the configured path unless the file there already describes the
    /// current state (apart from its end time). Returns the path written, or `nil` when the
    /// file was current. Test glue calls this at the end of a bundle and again at exit: the
    /// report is rewritten only when something changed, and its summary printed once.
    @discardableResult
    public func writeReportIfChanged() throws -> URL? {
        let configured = configuration
        let path = configured.resolvedReportPath
        let url = URL(fileURLWithPath: path)
        let report = makeReport()
        // What this engine wrote last is compared in memory (the file read back and decoded cost
        // a few milliseconds at the exit of every run); a file it did not write, read back.
        if let written = lastWrittenReport.withLock({ $0 }), written.path == path {
            if RunReports.isCurrent(written.report, comparedWith: report), FileManager.default.fileExists(atPath: path)
            {
                return nil
            }
        } else if FileManager.default.fileExists(atPath: path), let existing = try? DiagnosticsReport.load(from: url),
            RunReports.isCurrent(existing, comparedWith: report)
        {
            return nil
        }
        try ReportFileWriter.write(report.encoded(), to: url)
        lastWrittenReport.withLock { $0 = (path, report) }
        journal.withLock { $0 }?.discard()
        if configured.printsSummary {
            StandardError.write(ReportSummary.text(for: report, path: url.path))
        }
        return url
    }
}

/// Atomic file writes: temporary file in the same directory, then renamed over the
/// destination, so a reader sees the old file or the new one, never half of one.
///
/// The file is not flushed to the disk before the rename (`fsync` cost a fraction of a
/// millisecond per report, every run): a report is read by tools right after the test process
/// ends, from the system's cache; one lost to a power cut goes with the test run that made it.
///
/// ```swift
/// let data = try engine.makeReport().encoded(prettyPrinted: true)
/// try ReportFileWriter.write(data, to: URL(fileURLWithPath: ".build/reactive-diagnostics/report.json"))
/// ```
public enum ReportFileWriter {
    /// Writes `data` to `url` atomically, creating the directory if needed.
    public static func write(_ data: Data, to url: URL) throws {
        let directory = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let temporary = directory.appendingPathComponent(
            ".\(url.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).tmp")
        // Opened directly: `FileManager.createFile` would itself write a temporary and rename it.
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
        do {
            try handle.write(contentsOf: data)
            try handle.close()
        } catch {
            try? handle.close()
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
        if rename(temporary.path, url.path) != 0 {
            let code = errno
            try? FileManager.default.removeItem(at: temporary)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
    }
}

/// The short human summary printed on standard error when a report is written.
///
/// ```swift
/// let report = engine.makeReport()
/// FileHandle.standardError.write(Data(ReportSummary.text(for: report, path: nil).utf8))
/// ```
public enum ReportSummary {
    /// The summary text, ending with a newline.
    public static func text(for report: DiagnosticsReport, path: String?) -> String {
        let active = report.findings.filter { $0.suppressedBy == nil }
        let bySeverity = Dictionary(grouping: active, by: \.severity)
        var parts: [String] = []
        for severity in [Severity.error, .warning, .info] {
            if let count = bySeverity[severity]?.count, count > 0 {
                parts.append("\(count) \(severity.rawValue)\(count == 1 || severity == .info ? "" : "s")")
            }
        }
        let live = report.ledger.liveAtEnd.reduce(0) { $0 + $1.count }
        let tests = report.run.tests.count
        var lines = [
            "ReactiveDiagnostics: \(active.count) finding\(active.count == 1 ? "" : "s")"
                + (parts.isEmpty ? "" : " (\(parts.joined(separator: ", ")))")
                + (tests > 0 ? " in \(tests) test\(tests == 1 ? "" : "s")" : "")
                + "; \(live) resource\(live == 1 ? "" : "s") alive at the end"
        ]
        let suppressed = report.findings.count - active.count
        if suppressed > 0 {
            lines.append("  \(suppressed) suppressed")
        }
        let byKind = Dictionary(grouping: active, by: \.kind).map { ($0.key, $0.value.count) }
            .sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }
        if !byKind.isEmpty {
            lines.append(
                "  " + byKind.prefix(8).map { "\($0.0) ×\($0.1)" }.joined(separator: ", ")
                    + (byKind.count > 8 ? ", …" : ""))
        }
        if let path {
            lines.append("  report: \(path)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
