import Foundation
import ReactiveDiagTool
import Testing

/// The outcome of one in-process run of `reactive-diag`.
struct ToolRun {
    /// The exit code.
    var code: Int32
    /// Everything written to standard output.
    var stdout: String
    /// Everything written to standard error.
    var stderr: String

    /// Standard error's lines.
    var stderrLines: [String] {
        stderr.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty }
    }
}

/// Runs the tool in-process. By default with an empty `PATH` (no llvm-symbolizer: output is
/// the same on every machine) in the fixtures directory.
func runTool(
    _ arguments: [String], environment: [String: String] = ["PATH": ""],
    in directory: String = Fixtures.directory.path
) -> ToolRun {
    let out = StringSink()
    let err = StringSink()
    let code = ReactiveDiag.run(
        arguments: arguments, stdout: out, stderr: err, environment: environment, currentDirectory: directory)
    return ToolRun(code: code, stdout: out.text, stderr: err.text)
}

/// The test fixtures (copied into the test bundle's resources).
enum Fixtures {
    /// The directory holding the fixture reports.
    static var directory: URL {
        guard let url = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            fatalError("the Fixtures resource directory is missing from the test bundle")
        }
        return url
    }

    /// The URL of a fixture file.
    static func url(_ name: String) -> URL {
        directory.appendingPathComponent(name)
    }

    /// A fixture's bytes.
    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: url(name))
    }
}

/// A temporary directory removed when the closure returns.
func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("reactive-diag-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try body(url)
}

/// The async form, for bodies that wait for child processes.
func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("reactive-diag-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try await body(url)
}

/// The text of a file.
func readText(_ url: URL) throws -> String {
    String(decoding: try Data(contentsOf: url), as: UTF8.self)
}
