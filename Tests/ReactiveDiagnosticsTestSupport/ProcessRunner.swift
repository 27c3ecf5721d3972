public import Foundation
import _ReactiveDiagnosticsProcess

/// What a finished child process left.
public struct ProcessResult: Sendable {
    /// The exit status, or the signal number when it was killed by one.
    public var status: Int32
    /// Whether a signal ended it (a crash, a trap, `SIGKILL`).
    public var crashed: Bool
    /// Everything it wrote to standard output.
    public var standardOutput: String
    /// Everything it wrote to standard error.
    public var standardError: String
}

/// Runs child processes without blocking a thread of Swift's cooperative pool.
///
/// Swift Testing runs tests in parallel on a pool as small as the machine's core count; a test
/// that blocks in `waitUntilExit()` or a pipe read takes a pool thread away from every other
/// test for as long as the child runs. ``run(_:arguments:environment:currentDirectory:standardOutputClosed:timeout:)``
/// waits on a thread of its own (see `Subprocess`).
public enum ProcessRunner {
    /// Runs `executable` and waits for it; kills it after `timeout`.
    public static func run(
        _ executable: String, arguments: [String], environment: [String: String]? = nil,
        currentDirectory: URL? = nil, standardOutputClosed: Bool = false, timeout: Duration = .seconds(180)
    ) async throws -> ProcessResult {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let result = try await Subprocess.run(
            executable, arguments: arguments, environment: environment, currentDirectory: currentDirectory?.path,
            standardOutputClosed: standardOutputClosed, timeout: seconds)
        return ProcessResult(
            status: result.status, crashed: result.crashed,
            standardOutput: String(decoding: result.standardOutput, as: UTF8.self),
            standardError: String(decoding: result.standardError, as: UTF8.self))
    }
}

/// A temporary directory, removed when the value goes away.
public final class TemporaryDirectory: @unchecked Sendable {
    /// Its location.
    public let url: URL

    /// Creates a fresh, empty directory.
    public init(_ name: String = "rd") throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(name)-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The names of the files in it, sorted.
    public var files: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}
