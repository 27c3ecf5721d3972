import Foundation
import ReactiveDiagnosticsReport
import Synchronization

/// The report files named on a command line: files as given, directories expanded to
/// the `*.json` files directly inside them, sorted by name.
///
/// ```swift
/// let inputs = try ReportInputs.resolve(["shard-1.json", "reports/"], in: context)
/// let report = try inputs.loadMerged(maxBytes: 1 << 30, in: context)
/// ```
struct ReportInputs {
    /// One file to read: the path to show in messages and its URL.
    struct File: Equatable {
        var displayPath: String
        var url: URL

        /// Whether the file is a crash journal rather than a report.
        var isJournal: Bool { CrashJournals.isJournal(url.lastPathComponent) }
    }

    /// The report files and crash journals, in command-line order (each directory's files
    /// sorted by name).
    var files: [File]

    /// The crash journals among the inputs (see ``CrashJournals``).
    var journals: [File] {
        files.filter(\.isJournal)
    }

    /// Expands `paths` into report files.
    ///
    /// - Throws: ``ToolError`` for a missing path or a directory without reports.
    static func resolve(_ paths: [String], in context: ToolContext) throws -> ReportInputs {
        var files: [File] = []
        for path in paths {
            let url = context.url(for: path)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
                throw ToolError("\(path): no such file or directory")
            }
            guard isDirectory.boolValue else {
                files.append(File(displayPath: path, url: url))
                continue
            }
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
            } catch {
                throw ToolError("\(path): cannot list the directory: \(ErrorText.describe(error))")
            }
            let prefix = path.hasSuffix("/") ? path : path + "/"
            var found = 0
            for name in names where !name.hasPrefix(".") && (name.hasSuffix(".json") || CrashJournals.isJournal(name)) {
                files.append(File(displayPath: prefix + name, url: url.appendingPathComponent(name)))
                found += 1
            }
            if found == 0 {
                throw ToolError("\(path): no reports (*.json files) in the directory")
            }
        }
        return ReportInputs(files: files)
    }

    /// Reads every file (several at once when there are many) and returns them in order.
    ///
    /// - Throws: ``ToolError`` describing the first unusable file, in command-line order.
    func loadAll(maxBytes: Int, in context: ToolContext) throws -> [DiagnosticsReport] {
        let results = Mutex([Result<DiagnosticsReport, ReportError>?](repeating: nil, count: files.count))
        let files = self.files
        DispatchQueue.concurrentPerform(iterations: files.count) { index in
            let file = files[index]
            let result: Result<DiagnosticsReport, ReportError>
            do throws(ReportError) {
                result = .success(
                    file.isJournal
                        ? try DiagnosticsReport.loadJournal(from: file.url)
                        : try DiagnosticsReport.load(from: file.url, maxBytes: maxBytes))
            } catch {
                var renamed = error
                renamed.source = file.displayPath
                result = .failure(renamed)
            }
            results.withLock { $0[index] = result }
        }
        var reports = try results.withLock { results in
            try results.map { result -> DiagnosticsReport in
                switch result {
                case .success(let report): return report
                case .failure(let error): throw ToolError(error)
                case nil: throw ToolError("internal error: a report was not read")
                }
            }
        }
        for index in files.indices where files[index].isJournal {
            CrashJournals.nameRawStacks(of: &reports[index], from: files[index], in: context)
        }
        return reports
    }

    /// Reads every file and merges them (one file is returned as it is).
    func loadMerged(maxBytes: Int, in context: ToolContext) throws -> DiagnosticsReport {
        let reports = try loadAll(maxBytes: maxBytes, in: context)
        if reports.count == 1 {
            return reports[0]
        }
        return ReportMerger.merge(reports)
    }

    /// Resolves, reads and (when there are several) merges the reports at `paths`,
    /// with a note about crash journals found on the way.
    ///
    /// - Returns: The report and the paths read.
    static func load(
        _ paths: [String], maxBytes: Int, in context: ToolContext
    ) throws
        -> (report: DiagnosticsReport, inputs: [String])
    {
        let inputs = try resolve(paths, in: context)
        CrashJournals.note(inputs.journals, in: context)
        return (try inputs.loadMerged(maxBytes: maxBytes, in: context), inputs.displayPaths)
    }

    /// `mebibytes` MiB in bytes, saturating.
    static func bytes(mebibytes: Int) -> Int {
        mebibytes.multipliedReportingOverflow(by: 1 << 20).overflow ? Int.max : mebibytes << 20
    }

    /// The paths shown in views (`inputs`).
    var displayPaths: [String] {
        files.map(\.displayPath)
    }
}
