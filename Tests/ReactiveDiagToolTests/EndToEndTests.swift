import Foundation
import ReactiveDiagnosticsTestSupport
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

    private func run(_ arguments: [String]) async throws -> ToolRun {
        let executable = try #require(Self.executable, "reactive-diag is built next to the test bundle")
        let result = try await ProcessRunner.run(
            executable.path, arguments: arguments, environment: ["PATH": "", "NO_COLOR": "1"],
            currentDirectory: Fixtures.directory)
        return ToolRun(code: result.status, stdout: result.standardOutput, stderr: result.standardError)
    }

    @Test("gate exits 1 on new findings and 0 against a full baseline")
    func gate() async throws {
        let fresh = try await run(["gate", "shop-report.json", "shop-shard-2.json", "--baseline", "shop-baseline.json"])
        #expect(fresh.code == 1)
        #expect(fresh.stderr.hasPrefix("reactive-diag gate: FAIL: 3 new findings"))
        #expect(fresh.stdout.isEmpty)
        let clean = try await run(["gate", "shop-report.json", "--fail-on", "longAction"])
        #expect(clean.code == 1, "longAction is not in an absent baseline")
        let baselineOnly = try await run([
            "gate", "shop-shard-2.json", "--fail-on", "leakedSubscription", "--baseline", "shop-baseline.json",
        ])
        #expect(baselineOnly.code == 0)
    }

    @Test("unusable input exits 2 with one line; help exits 0; show writes the view")
    func otherExits() async throws {
        let missing = try await run(["show", "missing.json"])
        #expect(missing.code == 2)
        #expect(missing.stderr == "reactive-diag: missing.json: no such file or directory\n")
        let usage = try await run(["gate"])
        #expect(usage.code == 2)
        let help = try await run(["--help"])
        #expect(help.code == 0)
        #expect(help.stdout.contains("USAGE: reactive-diag <subcommand>"))
        let show = try await run(["show", "shop-report.json"])
        #expect(show.code == 0)
        #expect(show.stdout.hasPrefix("ReactiveDiagnostics report: ShopPackageTests.xctest\n"))
        #expect(!show.stdout.contains("\u{1B}["), "no colour on a pipe")
    }

    @Test("a reader that goes away early does not crash the tool (SIGPIPE is ignored)")
    func closedPipe() async throws {
        let executable = try #require(Self.executable)
        let result = try await ProcessRunner.run(
            executable.path, arguments: ["show", "shop-report.json", "shop-shard-2.json", "--format", "json"],
            environment: ["PATH": ""], currentDirectory: Fixtures.directory, standardOutputClosed: true)
        #expect(!result.crashed, "ended by exit, not by a signal")
        #expect(result.status == 0)
    }
}
