import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The built `reactive-diag` executable, run as a child process.
@Suite("end to end")
struct EndToEndTests {
    /// The executable next to this test bundle's resources in the build products directory.
    static var executable: URL? {
        let products = Bundle.module.bundleURL.deletingLastPathComponent()
        let candidate = products.appendingPathComponent("reactive-diag")
        return FileManager.default.isExecutableFile(atPath: candidate.path) ? candidate : nil
    }

    private func run(_ arguments: [String]) throws -> ToolRun {
        let executable = try #require(Self.executable, "reactive-diag is built next to the test bundle")
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = Fixtures.directory
        process.environment = ["PATH": "", "NO_COLOR": "1"]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let errors = StreamReader(err.fileHandleForReading)
        let output = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ToolRun(
            code: process.terminationStatus, stdout: String(decoding: output, as: UTF8.self),
            stderr: String(decoding: errors.wait(), as: UTF8.self))
    }

    @Test("gate exits 1 on new findings and 0 against a full baseline")
    func gate() throws {
        let fresh = try run(["gate", "shop-report.json", "shop-shard-2.json", "--baseline", "shop-baseline.json"])
        #expect(fresh.code == 1)
        #expect(fresh.stderr.hasPrefix("reactive-diag gate: FAIL: 3 new findings"))
        #expect(fresh.stdout.isEmpty)
        let clean = try run(["gate", "shop-report.json", "--fail-on", "longAction"])
        #expect(clean.code == 1, "longAction is not in an absent baseline")
        let baselineOnly = try run(["gate", "shop-shard-2.json", "--fail-on", "leakedSubscription", "--baseline", "shop-baseline.json"])
        #expect(baselineOnly.code == 0)
    }

    @Test("unusable input exits 2 with one line; help exits 0; show writes the view")
    func otherExits() throws {
        let missing = try run(["show", "missing.json"])
        #expect(missing.code == 2)
        #expect(missing.stderr == "reactive-diag: missing.json: no such file or directory\n")
        let usage = try run(["gate"])
        #expect(usage.code == 2)
        let help = try run(["--help"])
        #expect(help.code == 0)
        #expect(help.stdout.contains("USAGE: reactive-diag <subcommand>"))
        let show = try run(["show", "shop-report.json"])
        #expect(show.code == 0)
        #expect(show.stdout.hasPrefix("ReactiveDiagnostics report: ShopPackageTests.xctest\n"))
        #expect(!show.stdout.contains("\u{1B}["), "no colour on a pipe")
    }

    @Test("a reader that goes away early does not crash the tool (SIGPIPE is ignored)")
    func closedPipe() throws {
        let executable = try #require(Self.executable)
        let process = Process()
        process.executableURL = executable
        process.arguments = ["show", "shop-report.json", "shop-shard-2.json", "--format", "json"]
        process.currentDirectoryURL = Fixtures.directory
        process.environment = ["PATH": ""]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try out.fileHandleForReading.close()
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit, "ended by exit, not by a signal")
        #expect(process.terminationStatus == 0)
    }
}

/// Reads a pipe to its end on a thread of its own.
private final class StreamReader: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    /// Everything read, once the writer closed the pipe.
    func wait() -> Data {
        done.wait()
        return data
    }
}
