import Foundation
import Testing

/// The benchmark's command line (not its figures: those are the benchmark's business, never a
/// timed test's): help, refused arguments, and a quick run's JSON.
@Suite("reactive-diag-benchmark command line")
struct BenchmarkCommandLineTests {
    /// The executable in the build products directory, next to this test binary.
    static var executable: URL? {
        guard let products = Bundle.main.executableURL?.deletingLastPathComponent() else { return nil }
        let candidate = products.appendingPathComponent("reactive-diag-benchmark")
        return FileManager.default.isExecutableFile(atPath: candidate.path) ? candidate : nil
    }

    private func run(_ arguments: [String]) async throws -> ToolRun {
        let executable = try #require(Self.executable, "reactive-diag-benchmark is built next to the test bundle")
        return try await ToolRun.run(executable, arguments: arguments, environment: ["PATH": ""])
    }

    @Test("--help explains every option and runs nothing")
    func help() async throws {
        let help = try await run(["--help"])
        #expect(help.code == 0)
        for option in ["--quick", "--repetitions", "--max-repetitions", "--json", "--only", "--strict", "--profile"] {
            #expect(help.stdout.contains(option), "\(option) is described")
        }
        #expect(!help.stderr.contains("running"), "no suite ran")
    }

    @Test("a misspelt option, an unknown suite or profile case, and zero repetitions are refused before anything runs")
    func refusals() async throws {
        let misspelt = try await run(["--repetition", "3"])
        #expect(misspelt.code == 64)
        #expect(misspelt.stderr.contains("Unknown option '--repetition'. Did you mean '--repetitions'?"))
        let suite = try await run(["--only", "nope"])
        #expect(suite.code == 64)
        #expect(
            suite.stderr.contains(
                "--only 'nope' matches no suite; the suites are capture, ledger, memory, combine, scheduler, concurrency, findings, report, suites, longSuite, retainPaths"
            ))
        let profile = try await run(["--profile", "everything"])
        #expect(profile.code == 64 && profile.stderr.contains("unknown --profile case 'everything'"))
        let zero = try await run(["--repetitions", "0"])
        #expect(zero.code == 64 && zero.stderr.contains("--repetitions must be at least 1, not 0"))
        let negative = try await run(["--max-repetitions=-1"])
        #expect(negative.code == 64 && negative.stderr.contains("--max-repetitions must not be negative, not -1"))
        for refused in [misspelt, suite, profile, zero, negative] {
            #expect(!refused.stderr.contains("running "), "nothing ran: \(refused.stderr)")
        }
    }

    @Test("a quick run of one suite prints its table and writes its results as JSON")
    func quickRun() async throws {
        let directory = try TemporaryDirectory()
        let json = directory.url.appendingPathComponent("results.json")
        let quick = try await run(["--quick", "--only", "ledger", "--repetitions", "1", "--json", json.path])
        #expect(quick.code == 0, "\(quick.stderr)")
        #expect(quick.stderr.contains("running ledger…") && !quick.stderr.contains("running capture"))
        #expect(quick.stdout.contains("ledger.scaling4vs1"))
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [String: Any]
        let results = try #require(object?["results"] as? [[String: Any]])
        #expect(
            results.compactMap { $0["name"] as? String } == [
                "ledger.threads1", "ledger.threads2", "ledger.threads4", "ledger.scaling4vs1",
            ])
        #expect(object?["repetitions"] as? Int == 1)
    }
}
