import Foundation
import _ReactiveDiagnosticsProcess

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
        // `Subprocess` spawns with default signal handling, writes input through a file, and
        // reaps the child itself (Foundation's `Process` can miss an exit).
        let result = try Subprocess.run(executable.path, arguments: arguments, input: input, timeout: timeout)
        return Result(output: result.standardOutput, status: result.status, timedOut: result.timedOut)
    }
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
