import Foundation

/// Why a report could not be read. Its ``description`` is one line naming the file.
///
/// ```swift
/// do {
///     _ = try DiagnosticsReport.load(from: url)
/// } catch let error as ReportError {
///     FileHandle.standardError.write(Data("\(error)\n".utf8))   // report.json: truncated JSON …
/// }
/// ```
public struct ReportError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What went wrong.
    public enum Reason: Sendable, Equatable {
        /// The file could not be opened or read.
        case unreadable(String)
        /// The file is empty.
        case empty
        /// The file is larger than the reader accepts.
        case tooLarge(bytes: Int, limit: Int)
        /// The bytes are not valid JSON (for example a truncated file).
        case malformed(String)
        /// Valid JSON, but not a ReactiveDiagnostics report.
        case notAReport(String)
        /// A report of a schema version this reader does not know.
        case unsupportedVersion(found: Int, supported: Int)
        /// A report whose content breaks the format (a missing field, a dangling stack id).
        case invalid(String)
    }

    /// The file (or other source) that was being read.
    public var source: String
    /// What went wrong.
    public var reason: Reason

    /// Creates a report error.
    public init(source: String, reason: Reason) {
        self.source = source
        self.reason = reason
    }

    /// One line naming the file and what is wrong with it, such as `report.json: not valid JSON
    /// (truncated or corrupt?): …`; `reactive-diag` prints it and exits non-zero.
    public var description: String {
        let what: String
        switch reason {
        case .unreadable(let message): what = "cannot read the file: \(message)"
        case .empty: what = "the file is empty, not a report"
        case .tooLarge(let bytes, let limit):
            what = "the file has \(bytes) bytes, more than the \(limit)-byte limit for a report"
        case .malformed(let message): what = "not valid JSON (truncated or corrupt?): \(message)"
        case .notAReport(let message): what = "not a ReactiveDiagnostics report: \(message)"
        case .unsupportedVersion(let found, let supported):
            what =
                "report schemaVersion \(found) is not supported (this reader knows "
                + (supported == 1 ? "version 1)" : "versions 1 to \(supported))")
        case .invalid(let message): what = "invalid report: \(message)"
        }
        return "\(source): \(what)".replacingOccurrences(of: "\n", with: " ")
    }
}
