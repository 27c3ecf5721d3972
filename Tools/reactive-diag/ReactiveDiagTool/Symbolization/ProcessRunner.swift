import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a helper program (llvm-symbolizer, swift-demangle) with input on standard input,
/// collecting standard output, and kills it when it takes longer than a timeout.
///
/// ```swift
/// let result = try ProcessRunner.run(
///     executable: URL(fileURLWithPath: "/usr/bin/llvm-symbolizer"), arguments: ["--obj=/bin/ls"],
///     input: Data("0x1000\n".utf8), timeout: 30)
/// print(String(decoding: result.output, as: UTF8.self))
/// ```
enum ProcessRunner {
    /// What a run produced.
    struct Result {
        /// Everything written to standard output.
        var output: Data
        /// The exit status.
        var status: Int32
        /// Whether the timeout killed the program.
        var timedOut: Bool
    }

    /// Runs `executable` to completion or until `timeout` seconds have passed.
    ///
    /// - Throws: When the program cannot be started.
    static func run(executable: URL, arguments: [String], input: Data, timeout: TimeInterval) throws -> Result {
        ignoreBrokenPipes()
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let inputPipe = Pipe()
        let outputPipe = Pipe()
        process.standardInput = inputPipe
        process.standardOutput = outputPipe
        process.standardError = FileHandle.nullDevice
        try process.run()

        // The writer and the watchdog get threads of their own: callers may run several
        // helpers at once from `concurrentPerform`, which can occupy every global-queue thread.
        let writer = inputPipe.fileHandleForWriting
        let written = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            // A helper that dies early closes its end: the write fails with EPIPE, harmlessly.
            try? writer.write(contentsOf: input)
            try? writer.close()
            written.signal()
        }
        let timedOut = Flag()
        let watchdog = DispatchWorkItem { [process] in
            if process.isRunning {
                timedOut.value.store(true, ordering: .relaxed)
                // SIGKILL, not SIGTERM: a child spawned from a dispatch worker thread inherits
                // its blocked signal mask, and a blocked SIGTERM would never arrive.
                kill(process.processIdentifier, SIGKILL)
            }
        }
        DispatchQueue(label: "reactive-diag.process-watchdog").asyncAfter(deadline: .now() + timeout, execute: watchdog)
        let output = outputPipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        written.wait()
        return Result(output: output, status: process.terminationStatus, timedOut: timedOut.value.load(ordering: .relaxed))
    }

    private final class Flag: Sendable {
        let value = Atomic<Bool>(false)
    }

    /// Writing to a helper that has exited must not kill this process with SIGPIPE.
    private static func ignoreBrokenPipes() {
        _ = ignoreOnce
    }

    private static let ignoreOnce: Void = {
        signal(SIGPIPE, SIG_IGN)
    }()
}

/// Finds programs on `PATH`.
enum ExecutableLookup {
    /// The first executable file named `name` in the `PATH` of `environment`.
    static func find(_ name: String, environment: [String: String]) -> URL? {
        guard let path = environment["PATH"] else { return nil }
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) {
                return candidate
            }
        }
        return nil
    }
}
