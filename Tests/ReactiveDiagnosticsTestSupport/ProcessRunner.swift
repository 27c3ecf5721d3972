import Foundation

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
/// test for as long as the child runs. Output goes to temporary files (no pipe can fill up),
/// and the end of the process resumes the awaiting test.
public enum ProcessRunner {
    /// Runs `executable` and waits for it; kills it after `timeout`.
    public static func run(
        _ executable: String, arguments: [String], environment: [String: String]? = nil,
        currentDirectory: URL? = nil, standardOutputClosed: Bool = false, timeout: Duration = .seconds(180)
    ) async throws -> ProcessResult {
        let outputs = try TemporaryDirectory("rd-process")
        let stdoutURL = outputs.url.appendingPathComponent("stdout")
        let stderrURL = outputs.url.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        let stdout = try FileHandle(forWritingTo: stdoutURL)
        let stderr = try FileHandle(forWritingTo: stderrURL)
        defer {
            try? stdout.close()
            try? stderr.close()
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        if standardOutputClosed {
            let pipe = Pipe()
            try pipe.fileHandleForReading.close()
            process.standardOutput = pipe
        } else {
            process.standardOutput = stdout
        }
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let (status, reason): (Int32, Process.TerminationReason) = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { process in
                continuation.resume(returning: (process.terminationStatus, process.terminationReason))
            }
            do {
                try process.run()
            } catch {
                continuation.resume(throwing: error)
                return
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [process] in
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            }
        }
        return ProcessResult(
            status: status, crashed: reason == .uncaughtSignal,
            standardOutput: (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "",
            standardError: (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "")
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
