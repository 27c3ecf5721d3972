import Foundation

/// Runs this test binary again as a child process, to test what happens when a process
/// crashes or ends. Fixture tests in this target do nothing unless their variable is set.
struct ChildProcess {
    struct Result {
        var status: Int32
        var crashed: Bool
        var standardError: String
    }

    /// The running test executable (the `.xctest` bundle is an executable on Linux).
    static var testBinary: String {
        ProcessInfo.processInfo.arguments[0]
    }

    /// Runs the Swift Testing tests whose names match `filter`, with extra environment.
    static func runSwiftTesting(filter: String, environment: [String: String]) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: testBinary)
        process.arguments = ["--testing-library", "swift-testing", "--filter", filter]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let data = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, crashed: process.terminationReason == .uncaughtSignal,
            standardError: String(decoding: data, as: UTF8.self))
    }
}

/// A temporary directory removed when the value goes away.
final class TemporaryDirectory {
    let url: URL

    init(_ name: String = "rd") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    var files: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}
