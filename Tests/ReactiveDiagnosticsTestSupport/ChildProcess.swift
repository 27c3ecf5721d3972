public import Foundation
public import ReactiveDiagnostics

/// What a child run of this test binary left: exit status, output and report files.
public struct ChildRun: Sendable {
    public var status: Int32
    /// Whether a signal ended the child (a crash, a trap, `SIGKILL`).
    public var crashed: Bool
    public var standardOutput: String
    public var standardError: String
    /// The directory `REACTIVE_DIAGNOSTICS_REPORT` pointed into.
    public var reportDirectory: URL

    /// Both streams (XCTest prints failures on standard output, the summary goes to standard error).
    public var output: String { standardOutput + "\n" + standardError }

    /// The report files in ``reportDirectory`` (temporary files excluded), sorted by name.
    public func reportFiles() throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: reportDirectory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" && !$0.lastPathComponent.hasPrefix(".") }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// The single report the child wrote.
    public func report() throws -> DiagnosticsReport {
        let files = try reportFiles()
        guard files.count == 1 else {
            throw ChildProcess.Failure(
                "expected one report in \(reportDirectory.path), found \(files.map(\.lastPathComponent))\n\(output)")
        }
        return try DiagnosticsReport.load(from: files[0])
    }
}

/// Runs this very test binary again as a child process, with fixtures turned on.
public enum ChildProcess {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    /// The test binary (`…PackageTests.xctest` on Linux is an executable).
    public static var testBinary: String {
        #if os(Linux)
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return path
        }
        #endif
        return Bundle.main.executablePath ?? CommandLine.arguments[0]
    }

    /// A new empty directory for one child's reports.
    public static func makeReportDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("rd-glue-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Runs XCTest tests of this binary (`Module.Class/testMethod`, comma-separated).
    public static func runXCTest(
        _ filter: String, environment: [String: String] = [:], reportDirectory: URL? = nil
    ) async throws -> ChildRun {
        try await run(arguments: [filter], environment: environment, reportDirectory: reportDirectory)
    }

    /// Runs Swift Testing tests of this binary whose ID matches the regular expression `filter`.
    public static func runSwiftTesting(
        _ filter: String, environment: [String: String] = [:], reportDirectory: URL? = nil
    ) async throws -> ChildRun {
        try await run(
            arguments: ["--testing-library", "swift-testing", "--filter", filter], environment: environment,
            reportDirectory: reportDirectory)
    }

    /// Runs the binary with `arguments`; the child inherits this environment without its own
    /// `REACTIVE_DIAGNOSTICS_*` variables, plus fixtures on, a 50 ms settle time, the quiet
    /// long-action threshold, reports in a fresh directory, and `environment`.
    public static func run(
        arguments: [String], environment: [String: String], reportDirectory: URL?
    ) async throws -> ChildRun {
        let directory = try reportDirectory ?? makeReportDirectory()
        var childEnvironment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("REACTIVE_DIAGNOSTICS_") }
        childEnvironment["REACTIVE_DIAGNOSTICS_FIXTURE"] = "1"
        childEnvironment["REACTIVE_DIAGNOSTICS_SETTLE_MS"] = "50"
        childEnvironment["REACTIVE_DIAGNOSTICS_LONG_ACTION_MS"] =
            "\(quietLongActionThreshold.components.seconds * 1000)"
        childEnvironment["REACTIVE_DIAGNOSTICS_REPORT"] = directory.appendingPathComponent("report-%n-%p.json").path
        childEnvironment.merge(environment) { $1 }

        let result = try await ProcessRunner.run(
            testBinary, arguments: arguments, environment: childEnvironment, timeout: .seconds(120))
        return ChildRun(
            status: result.status, crashed: result.crashed, standardOutput: result.standardOutput,
            standardError: result.standardError,
            reportDirectory: directory)
    }
}

extension DiagnosticsReport {
    /// The first user frame's function of a stack of this report.
    public func firstUserFunction(ofStack id: Int?) -> String? {
        guard let id, let stack = stacks.first(where: { $0.id == id }) else { return nil }
        return stack.frames.first { $0.category == .user }?.function
    }

    /// The test record named `name`.
    public func test(_ name: String) -> TestRecord? {
        run.tests.first { $0.name == name }
    }
}

/// Whether child runs of the test binary work here: on Linux the XCTest bundle is an
/// executable that runs either testing library.
public let childProcessesAreSupported: Bool = {
    #if os(Linux)
    return true
    #else
    return false
    #endif
}()
