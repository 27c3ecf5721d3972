import Foundation

/// What one run of a command-line tool left: its exit code and both outputs.
struct ToolRun {
    /// The exit code.
    var code: Int32
    /// Everything written to standard output.
    var stdout: String
    /// Everything written to standard error.
    var stderr: String

    /// Runs `executable` to its end, its outputs collected through temporary files (no pipe can
    /// fill up), without blocking a thread of the cooperative pool.
    static func run(_ executable: URL, arguments: [String], environment: [String: String]) async throws -> ToolRun {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("toolrun-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("out")
        let err = directory.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        let code: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        return ToolRun(
            code: code, stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
    }
}

/// A fresh, empty directory, removed with everything in it when released.
final class TemporaryDirectory {
    /// Its location.
    let url: URL

    /// Creates a fresh, empty directory.
    init(_ name: String = "rd") throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(name)-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}
