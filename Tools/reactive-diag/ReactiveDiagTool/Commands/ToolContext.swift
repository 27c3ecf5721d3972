import ArgumentParser
public import Foundation

/// What a command may touch besides its arguments: its two output streams, the
/// environment and the working directory. Tests pass their own.
///
/// ```swift
/// let context = ToolContext(stdout: StringSink(), stderr: StringSink(), environment: ["NO_COLOR": "1"])
/// ```
public struct ToolContext {
    /// The command's output: the view, JSON, annotations.
    public var stdout: any OutputSink
    /// Diagnostics: errors, notes, the gate's verdict.
    public var stderr: any OutputSink
    /// Environment variables (`PATH` to find llvm-symbolizer, `NO_COLOR`, `TERM`).
    public var environment: [String: String]
    /// The directory relative paths are resolved against.
    public var currentDirectory: String

    /// Creates a context.
    public init(
        stdout: any OutputSink, stderr: any OutputSink,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        currentDirectory: String = FileManager.default.currentDirectoryPath
    ) {
        self.stdout = stdout
        self.stderr = stderr
        self.environment = environment
        self.currentDirectory = currentDirectory
    }

    /// The process's real standard output and error.
    static func standard() -> ToolContext {
        ToolContext(stdout: FileDescriptorSink(descriptor: 1), stderr: FileDescriptorSink(descriptor: 2))
    }

    /// A path from the command line as a file URL, relative paths resolved against ``currentDirectory``.
    package func url(for path: String) -> URL {
        if path.hasPrefix("/") {
            return URL(fileURLWithPath: path)
        }
        return URL(fileURLWithPath: currentDirectory).appendingPathComponent(path)
    }

    /// Prints one diagnostic line, `reactive-diag: <text>`, on standard error.
    package func diagnose(_ text: String) {
        stderr.write("reactive-diag: \(TerminalText.sanitize(text))\n")
    }

    /// Prints a note, `reactive-diag: note: <text>`, on standard error.
    package func note(_ text: String) {
        stderr.write("reactive-diag: note: \(TerminalText.sanitize(text))\n")
    }
}

/// A subcommand that runs against a ``ToolContext`` and returns its exit code.
package protocol ToolCommand {
    /// Runs the command.
    ///
    /// - Returns: The exit code (``ExitStatus``).
    /// - Throws: ``ToolError`` for unusable input.
    func execute(in context: ToolContext) throws -> Int32
}

extension ToolCommand where Self: ParsableCommand {
    /// Runs the command against the real standard streams, for callers that use
    /// ArgumentParser's own `main()`; ``ReactiveDiag/run(arguments:stdout:stderr:environment:currentDirectory:)``
    /// calls ``execute(in:)`` directly.
    mutating func run() throws {
        let context = ToolContext.standard()
        defer {
            context.stdout.flush()
            context.stderr.flush()
        }
        let code: Int32
        do {
            code = try execute(in: context)
        } catch let error as ToolError {
            context.diagnose(error.message)
            code = error.exitCode
        }
        if code != ExitStatus.success {
            throw ExitCode(code)
        }
    }
}
