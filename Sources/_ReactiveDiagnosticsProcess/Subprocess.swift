public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What a finished child process left.
public struct SubprocessResult: Sendable {
    /// The exit status, or the number of the signal that ended it.
    public var status: Int32
    /// Whether a signal ended it (a crash, a trap, a kill).
    public var crashed: Bool
    /// Whether the timeout killed it.
    public var timedOut: Bool
    /// Everything it wrote to standard output.
    public var standardOutput: Data
    /// Everything it wrote to standard error.
    public var standardError: Data
}

/// Runs helper programs (llvm-symbolizer, child test processes) reliably.
///
/// Not API: this package's modules share it (the underscore says so).
///
/// - The child starts with `posix_spawn`, with the default signal mask and dispositions (a
///   child spawned from a dispatch worker thread would otherwise inherit blocked signals).
/// - Input and output go through temporary files: no pipe can fill up and deadlock.
/// - The child is reaped with `waitpid` by a thread of its own. Foundation's `Process` on Linux
///   can miss the exit of a child when several end at once, and `waitUntilExit` then never
///   returns; this never depends on it.
/// - A timeout kills the child with `SIGKILL`.
///
/// ```swift
/// let result = try Subprocess.run("/usr/bin/llvm-symbolizer", arguments: ["--obj=/bin/ls", "0x1000"], timeout: 30)
/// print(String(decoding: result.standardOutput, as: UTF8.self))
/// ```
public enum Subprocess {
    /// Runs `executable` to completion (or until `timeout` seconds), blocking the calling thread.
    public static func run(
        _ executable: String, arguments: [String], environment: [String: String]? = nil,
        currentDirectory: String? = nil, input: Data? = nil, standardOutputClosed: Bool = false, timeout: Double
    ) throws -> SubprocessResult {
        let job = try Job(
            executable, arguments: arguments, environment: environment, currentDirectory: currentDirectory,
            input: input, standardOutputClosed: standardOutputClosed)
        return job.finish(status: job.waitForExit(timeout: timeout))
    }

    /// Runs `executable` and waits without blocking the caller's thread (for Swift concurrency).
    public static func run(
        _ executable: String, arguments: [String], environment: [String: String]? = nil,
        currentDirectory: String? = nil, input: Data? = nil, standardOutputClosed: Bool = false, timeout: Double
    ) async throws -> SubprocessResult {
        let job = try Job(
            executable, arguments: arguments, environment: environment, currentDirectory: currentDirectory,
            input: input, standardOutputClosed: standardOutputClosed)
        let status: (Int32, Bool) = await withCheckedContinuation { continuation in
            let reaper = Thread { continuation.resume(returning: job.waitForExit(timeout: timeout)) }
            reaper.name = "Subprocess waitpid"
            reaper.start()
        }
        return job.finish(status: status)
    }
}

/// One started child and its files.
private final class Job: @unchecked Sendable {
    let pid: pid_t
    let directory: URL
    let stdoutPath: String
    let stderrPath: String

    init(
        _ executable: String, arguments: [String], environment: [String: String]?, currentDirectory: String?,
        input: Data?, standardOutputClosed: Bool
    ) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("rd-subprocess-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        stdoutPath = directory.appendingPathComponent("stdout").path
        stderrPath = directory.appendingPathComponent("stderr").path
        let stdinPath = directory.appendingPathComponent("stdin").path
        try (input ?? Data()).write(to: URL(fileURLWithPath: stdinPath))

        var program = executable
        var argv = [executable] + arguments
        if let currentDirectory {
            // posix_spawn has no portable "change directory" action: env(1) does it.
            program = "/usr/bin/env"
            argv = ["/usr/bin/env", "-C", currentDirectory, executable] + arguments
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdinPath, O_RDONLY, 0)
        var descriptors: [Int32] = [-1, -1]
        if standardOutputClosed {
            // A reader that went away: writes to standard output fail with EPIPE.
            guard pipe(&descriptors) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            close(descriptors[0])
            posix_spawn_file_actions_adddup2(&actions, descriptors[1], 1)
            posix_spawn_file_actions_addclose(&actions, descriptors[1])
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        }
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        defer {
            if descriptors[1] >= 0 { close(descriptors[1]) }
        }

        do {
            pid = try spawn(program, arguments: argv, environment: environment, actions: &actions)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// Blocks until the child ends (killing it after `timeout` seconds); returns the raw wait
    /// status and whether the timeout fired.
    func waitForExit(timeout: Double) -> (Int32, Bool) {
        let killed = KillSwitch()
        let pid = self.pid
        let timer = DispatchWorkItem {
            killed.fire()
            kill(pid, SIGKILL)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: timer)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        timer.cancel()
        return (status, killed.fired)
    }

    func finish(status: (Int32, Bool)) -> SubprocessResult {
        defer { try? FileManager.default.removeItem(at: directory) }
        // WIFSIGNALED, WTERMSIG and WEXITSTATUS, spelled out (they are C macros).
        let signal = status.0 & 0x7f
        let crashed = signal != 0 && signal != 0x7f
        return SubprocessResult(
            status: crashed ? signal : (status.0 >> 8) & 0xff, crashed: crashed, timedOut: status.1,
            standardOutput: Self.contents(atPath: stdoutPath), standardError: Self.contents(atPath: stderrPath))
    }

    /// The file's bytes; an empty file is not read. Foundation's `FileManager.contents(atPath:)`
    /// reads an empty file as a file of unknown size (as /proc's) into a 4 KiB buffer it never
    /// frees when nothing comes (LeakSanitizer: 4,096 bytes a call; a child that writes nothing
    /// on one of its streams is the common case).
    private static func contents(atPath path: String) -> Data {
        var status = stat()
        guard stat(path, &status) == 0, status.st_size > 0 else { return Data() }
        return FileManager.default.contents(atPath: path) ?? Data()
    }
}

/// Whether the timeout fired (set from the timer's thread, read after the child is reaped).
private final class KillSwitch: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    func fire() { lock.withLock { value = true } }
    var fired: Bool { lock.withLock { value } }
}
