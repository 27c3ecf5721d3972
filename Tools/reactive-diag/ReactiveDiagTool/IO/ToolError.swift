import Foundation
public import ReactiveDiagnosticsReport

/// A failure that ends a command with a one-line message and an exit code.
///
/// The message names the file and what is wrong; ``ReactiveDiag`` prints it as
/// `reactive-diag: <message>` on standard error.
///
/// ```swift
/// throw ToolError("reports/: no reports (*.json files) in the directory")
/// ```
public struct ToolError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The line to print after `reactive-diag: `, usually `<file>: <what is wrong>`.
    public var message: String
    /// The process exit code (``ExitStatus/unusableInput`` unless said otherwise).
    public var exitCode: Int32

    /// Creates an error.
    public init(_ message: String, exitCode: Int32 = ExitStatus.unusableInput) {
        self.message = message.replacingOccurrences(of: "\n", with: " ")
        self.exitCode = exitCode
    }

    /// Wraps a report-reading error, keeping its one-line description.
    public init(_ error: ReportError) {
        self.init(error.description)
    }

    /// An error about writing `path`.
    static func cannotWrite(_ path: String, _ error: any Error) -> ToolError {
        ToolError("\(path): cannot write the file: \(ErrorText.describe(error))")
    }

    /// The one-line message, which the tool prints on standard error before exiting with
    /// ``exitCode``.
    public var description: String { message }
}

/// The exit codes of `reactive-diag`.
///
/// ```swift
/// let code = ReactiveDiag.run(arguments: ["gate", "report.json"])
/// if code == ExitStatus.newFindings { print("new findings") }
/// ```
public enum ExitStatus {
    /// Success; for `gate`: nothing new beyond the baseline.
    public static let success: Int32 = 0
    /// `gate` only: there are new findings (or more live resources than `--max-live`).
    public static let newFindings: Int32 = 1
    /// An input is unusable (missing, malformed, wrong version) or the command line is wrong.
    public static let unusableInput: Int32 = 2
}
