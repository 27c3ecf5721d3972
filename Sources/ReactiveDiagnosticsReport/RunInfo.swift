public import Foundation

/// Where and when a report's findings were made.
///
/// ```swift
/// let run = report.run
/// print(run.processName, run.platform, run.completeness)   // partial: rebuilt from a crash journal
/// print(run.endTime.timeIntervalSince(run.startTime), "s,", run.tests.count, "tests")
/// ```
public struct RunInfo: Codable, Sendable, Equatable {
    /// The process name (usually the test bundle's executable).
    public var processName: String
    /// The process id.
    public var processID: Int32
    /// The command-line arguments of the process.
    public var arguments: [String]
    /// The absolute path of the main executable.
    public var executable: String
    /// The working directory of the process.
    public var workingDirectory: String
    /// The host name of the machine.
    public var hostName: String
    /// Operating system and architecture, for example `Linux x86_64`.
    public var platform: String
    /// The Swift compiler that built the library, for example `Swift 6.3`.
    public var toolchain: String
    /// When the engine started.
    public var startTime: Date
    /// When the report was written.
    public var endTime: Date
    /// `final` for a report written at the end of a run, `partial` for one rebuilt from a
    /// crash journal, `merged` for the output of `reactive-diag merge`.
    public var completeness: Completeness
    /// The tests that ran under diagnostics, in the order they finished.
    public var tests: [TestRecord]
    /// How many processes were merged into this report (1 for a single process).
    public var processCount: Int

    /// How complete a report is.
    public enum Completeness: String, Codable, Sendable, Equatable, CaseIterable {
        /// Written when the run ended normally.
        case final
        /// Rebuilt from the journal of a process that did not finish.
        case partial
        /// Merged from several reports.
        case merged
    }

    /// Creates run information.
    public init(
        processName: String, processID: Int32, arguments: [String] = [], executable: String = "",
        workingDirectory: String = "", hostName: String = "", platform: String = "",
        toolchain: String = "", startTime: Date, endTime: Date,
        completeness: Completeness = .final, tests: [TestRecord] = [], processCount: Int = 1
    ) {
        self.processName = processName
        self.processID = processID
        self.arguments = arguments
        self.executable = executable
        self.workingDirectory = workingDirectory
        self.hostName = hostName
        self.platform = platform
        self.toolchain = toolchain
        self.startTime = startTime
        self.endTime = endTime
        self.completeness = completeness
        self.tests = tests
        self.processCount = processCount
    }
}

/// One test that ran with diagnostics enabled.
///
/// ```swift
/// let failed = report.run.tests.filter(\.failed).map(\.name)
/// ```
public struct TestRecord: Codable, Sendable, Equatable {
    /// The test's name, for example `ImageLoaderTests.testLoad()`.
    public var name: String
    /// How many findings were attributed to it (suppressed ones excluded).
    public var findings: Int
    /// Whether diagnostics failed the test.
    public var failed: Bool

    /// Creates a test record.
    public init(name: String, findings: Int, failed: Bool) {
        self.name = name
        self.findings = findings
        self.failed = failed
    }
}
