import Foundation
import ReactiveDiagnosticsReport
import Testing

/// Where a team meets a finding in CI (annotations, SARIF, JUnit, the job summary), the finding
/// carries why its resource is alive and the fix, placed at the line to change.
@Suite("The explanation at the gate")
struct GateExplanationTests {
    /// The gate on the fixture whose leak has a retain cycle closed by the closure at
    /// CartViewModel.swift:42.
    static func gate(in directory: URL) -> ToolRun {
        runTool(
            [
                "gate", Fixtures.url("cycle-report.json").path, "--source-root", "/src", "--sarif", "gate.sarif",
                "--junit", "gate.xml", "--github-annotations", "--color", "never",
            ], environment: ["PATH": "", "GITHUB_STEP_SUMMARY": directory.appendingPathComponent("summary.md").path],
            in: directory.path)
    }

    @Test func annotationsSitAtTheLineToChangeWithWhyAndFix() throws {
        try withTemporaryDirectory { directory in
            let run = Self.gate(in: directory)
            #expect(run.code == 1)
            let leak = try #require(run.stdout.split(separator: "\n").first { $0.contains("title=leakedSubscription") })
            #expect(leak.hasPrefix("::error file=Shop/CartViewModel.swift,line=42,col=37,"), "\(leak)")
            #expect(leak.contains("%0Awhy: retain cycle: CartViewModel.cancellables"), "\(leak)")
            #expect(leak.contains("%0Afix: capture [weak self] in the closure at CartViewModel.swift:42"), "\(leak)")
            #expect(leak.contains("%0Asubscribed at: "), "the subscribe site is said: \(leak)")
            // A finding without a retain path stays where it was.
            #expect(!run.stdout.contains("title=valueAfterTermination \"image.load\" (×1)::A value%0Awhy"))
        }
    }

    @Test func sarifCarriesTheCycleAsACodeFlowAndTheFix() async throws {
        try await withTemporaryDirectory { directory in
            let run = Self.gate(in: directory)
            #expect(run.code == 1)
            let data = try Data(contentsOf: directory.appendingPathComponent("gate.sarif"))
            if let problems = try await SchemaValidators.sarifProblems(data) {
                #expect(problems.isEmpty, "\(problems)")
            }
            let log = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let results = ((log["runs"] as? [[String: Any]])?.first?["results"] as? [[String: Any]]) ?? []
            let leak = try #require(results.first { $0["ruleId"] as? String == "leakedSubscription" })
            let text = (leak["message"] as? [String: Any])?["text"] as? String ?? ""
            #expect(text.contains("\nwhy: retain cycle: ") && text.contains("\nfix: capture [weak self]"), "\(text)")
            let primary = (leak["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any]
            #expect((primary?["region"] as? [String: Any])?["startLine"] as? Int == 42)
            #expect(((primary?["artifactLocation"] as? [String: Any])?["uri"] as? String) == "Shop/CartViewModel.swift")
            let related = (leak["relatedLocations"] as? [[String: Any]]) ?? []
            #expect(related.contains { ($0["message"] as? [String: Any])?["text"] as? String == "subscribed here" })
            let flow = try #require((leak["codeFlows"] as? [[String: Any]])?.first)
            let steps = ((flow["threadFlows"] as? [[String: Any]])?.first?["locations"] as? [[String: Any]]) ?? []
            #expect(steps.count == 3, "one step per object of the cycle")
            #expect(
                steps.contains { step in
                    let location = step["location"] as? [String: Any]
                    let region = (location?["physicalLocation"] as? [String: Any])?["region"] as? [String: Any]
                    return region?["startLine"] as? Int == 42
                }, "the closure's step is at its line")
        }
    }

    @Test func junitAndTheJobSummarySayWhyAndTheFix() throws {
        try withTemporaryDirectory { directory in
            _ = Self.gate(in: directory)
            let junit = try String(contentsOf: directory.appendingPathComponent("gate.xml"), encoding: .utf8)
            #expect(junit.contains("why: retain cycle: CartViewModel.cancellables"))
            #expect(junit.contains("fix: capture [weak self] in the closure at CartViewModel.swift:42"))
            #expect(junit.contains("change: Shop/CartViewModel.swift:42"))
            let summary = try String(contentsOf: directory.appendingPathComponent("summary.md"), encoding: .utf8)
            #expect(summary.contains("**Why they are alive, and the fix:**"), "\(summary)")
            #expect(
                summary.contains("at `Shop/CartViewModel.swift:42`: retain cycle: CartViewModel.cancellables"),
                "\(summary)")
            #expect(summary.contains("**fix:** capture [weak self]"), "\(summary)")
        }
    }
}
