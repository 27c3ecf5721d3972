import Foundation
import ReactiveDiagnostics
import Testing

/// This test binary run again as a child process, with its fixtures on: the documented
/// setups checked end to end, as a user's test run would see them.
struct ChildRun {
    var status: Int32
    var standardOutput: String
    var standardError: String
    var reportDirectory: URL

    /// Both streams (XCTest prints failures on standard output, the summary goes to standard error).
    var output: String { standardOutput + "\n" + standardError }

    /// The one report the child wrote.
    func report() throws -> DiagnosticsReport {
        let files = try FileManager.default.contentsOfDirectory(at: reportDirectory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" && !$0.lastPathComponent.hasPrefix(".") }
        guard files.count == 1 else {
            throw ChildFailure(
                "expected one report in \(reportDirectory.path), found \(files.map(\.lastPathComponent))\n\(output)")
        }
        return try DiagnosticsReport.load(from: files[0])
    }

    /// Runs the XCTest class `testClass` (`Module.Class`) of this binary.
    static func xctest(_ testClass: String) throws -> ChildRun {
        try run([testClass])
    }

    /// Runs the Swift Testing tests whose ID matches the regular expression `filter`.
    static func swiftTesting(_ filter: String) throws -> ChildRun {
        try run(["--testing-library", "swift-testing", "--filter", filter])
    }

    private static func run(_ arguments: [String]) throws -> ChildRun {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent(
                "rx-diagnostics-child-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("REACTIVE_DIAGNOSTICS_") }
        environment["REACTIVE_DIAGNOSTICS_FIXTURE"] = "1"
        environment["REACTIVE_DIAGNOSTICS_SETTLE_MS"] = "300"
        environment["REACTIVE_DIAGNOSTICS_LONG_ACTION_MS"] = "10000"
        environment["REACTIVE_DIAGNOSTICS_REPORT"] = directory.appendingPathComponent("report-%p.json").path
        let output = directory.appendingPathComponent("stdout.txt")
        let errors = directory.appendingPathComponent("stderr.txt")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        let process = Process()
        process.executableURL = URL(
            fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        process.arguments = arguments
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        // One child at a time (the suites are serialized); bounded so a hang fails the test.
        let deadline = Date().addingTimeInterval(120)
        while process.isRunning, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
        if process.isRunning {
            process.terminate()
            throw ChildFailure("the child run \(arguments) did not end within 120 s")
        }
        return ChildRun(
            status: process.terminationStatus,
            standardOutput: (try? String(contentsOf: output, encoding: .utf8)) ?? "",
            standardError: (try? String(contentsOf: errors, encoding: .utf8)) ?? "",
            reportDirectory: directory)
    }
}

/// Fixture tests run only in a child started by ``ChildRun`` (`REACTIVE_DIAGNOSTICS_FIXTURE=1`).
enum Fixture {
    static let isActive = ProcessInfo.processInfo.environment["REACTIVE_DIAGNOSTICS_FIXTURE"] == "1"
    static let skipReason = "fixture: runs only in a child process started by the integration tests"
    static let disabledReason: Comment = "fixture: runs only in a child process started by the integration tests"

    /// An engine that writes and prints nothing, for fixture classes in the normal run.
    static let quietEngine: DiagnosticsEngine = {
        var configuration = Configuration()
        configuration.writesReport = false
        configuration.printsSummary = false
        return DiagnosticsEngine(configuration: configuration)
    }()
}

struct ChildFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The line of a `// SITE: name` marker in a source file.
func siteLine(_ name: String, in file: String) throws -> Int {
    let lines = try String(contentsOfFile: file, encoding: .utf8).split(
        separator: "\n", omittingEmptySubsequences: false)
    guard let index = lines.firstIndex(where: { $0.hasSuffix("// SITE: \(name)") }) else {
        throw ChildFailure("no SITE marker '\(name)' in \(file)")
    }
    return index + 1
}

extension DiagnosticsReport {
    /// The first user frame of a stack of this report.
    func firstUserFrame(ofStack id: Int?) -> ReportFrame? {
        guard let id, let stack = stacks.first(where: { $0.id == id }) else { return nil }
        return stack.frames.first { $0.category == .user }
    }
}
