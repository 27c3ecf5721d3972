import ArgumentParser
public import Foundation

/// The `reactive-diag` tool as a function: parse arguments, run the command, return the
/// exit code. The executable calls it with the real streams; tests call it with
/// ``StringSink``s.
///
/// ```swift
/// let out = StringSink(), err = StringSink()
/// let code = ReactiveDiag.run(arguments: ["gate", "report.json", "--baseline", "baseline.json"],
///                             stdout: out, stderr: err)
/// // code: 0 nothing new, 1 new findings, 2 unusable input; err.text holds the verdict
/// ```
///
/// ```
/// $ reactive-diag gate .build/reactive-diagnostics --baseline ci/baseline.json
/// reactive-diag gate: PASS: no new findings beyond the baseline (--fail-on error)
///   baseline: 6 findings match it (5 fingerprints); 0 entries fixed since
/// $ echo $?
/// 0
/// ```
public enum ReactiveDiag {
    /// The tool's version.
    public static let version = "0.1.0"

    /// Runs one command line (without the program name).
    ///
    /// - Returns: ``ExitStatus/success``, ``ExitStatus/newFindings`` or
    ///   ``ExitStatus/unusableInput`` (also for command-line errors; help and `--version` return 0).
    public static func run(
        arguments: [String],
        stdout: any OutputSink = FileDescriptorSink(descriptor: 1),
        stderr: any OutputSink = FileDescriptorSink(descriptor: 2),
        environment: [String: String] = ProcessInfo.processInfo.environment,
        currentDirectory: String = FileManager.default.currentDirectoryPath
    ) -> Int32 {
        run(
            arguments: arguments, stdout: stdout, stderr: stderr, environment: environment,
            currentDirectory: currentDirectory, extensions: ToolExtensions())
    }

    /// ``run(arguments:stdout:stderr:environment:currentDirectory:)`` with what an executable
    /// of this package adds (the `fix` command and its fixer, from ReactiveDiagFix).
    package static func run(
        arguments: [String], stdout: any OutputSink = FileDescriptorSink(descriptor: 1),
        stderr: any OutputSink = FileDescriptorSink(descriptor: 2),
        environment: [String: String] = ProcessInfo.processInfo.environment,
        currentDirectory: String = FileManager.default.currentDirectoryPath, extensions: ToolExtensions
    ) -> Int32 {
        ToolExtensions.$current.withValue(extensions) {
            runCommand(
                arguments: arguments, stdout: stdout, stderr: stderr, environment: environment,
                currentDirectory: currentDirectory)
        }
    }

    private static func runCommand(
        arguments: [String], stdout: any OutputSink, stderr: any OutputSink, environment: [String: String],
        currentDirectory: String
    ) -> Int32 {
        let context = ToolContext(
            stdout: stdout, stderr: stderr, environment: environment, currentDirectory: currentDirectory)
        defer {
            stdout.flush()
            stderr.flush()
        }
        let command: any ParsableCommand
        do {
            command = try ReactiveDiagCommand.parseAsRoot(arguments)
        } catch {
            return commandLineProblem(error, context: context)
        }
        if let tool = command as? any ToolCommand {
            do {
                return try tool.execute(in: context)
            } catch let error as ToolError {
                context.diagnose(error.message)
                return error.exitCode
            } catch {
                context.diagnose(ErrorText.describe(error))
                return ExitStatus.unusableInput
            }
        }
        var other = command
        do {
            try other.run()
            return ExitStatus.success
        } catch {
            return commandLineProblem(error, context: context)
        }
    }

    /// Help, `--version`, or a usage error: ArgumentParser's message, and exit code 2 for errors.
    private static func commandLineProblem(_ error: any Error, context: ToolContext) -> Int32 {
        let columns = context.stdout.isTerminal ? nil : 100
        let message = ReactiveDiagCommand.fullMessage(for: error, columns: columns)
        let code = ReactiveDiagCommand.exitCode(for: error)
        if code == .success {
            context.stdout.write(message.hasSuffix("\n") ? message : message + "\n")
            return ExitStatus.success
        }
        context.stderr.write(message.hasSuffix("\n") ? message : message + "\n")
        if let exit = error as? ExitCode {
            return exit.rawValue
        }
        return ExitStatus.unusableInput
    }
}
