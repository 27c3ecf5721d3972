import Foundation
import ReactiveDiagTool
import ReactiveDiagnosticsTestSupport
import Testing

@Suite("gate")
struct GateCommandTests {
    /// Both shards against the fixture baseline, which accepts all but two of the first
    /// shard's fingerprints and has one entry no finding has any more.
    private func gateBothShards(_ extra: [String], in directory: URL) -> ToolRun {
        runTool(
            [
                "gate", Fixtures.url("shop-report.json").path, Fixtures.url("shop-shard-2.json").path,
                "--baseline", Fixtures.url("shop-baseline.json").path, "--source-root", "/src/shop", "--color", "never",
            ]
                + extra,
            in: directory.path)
    }

    @Test("exit 0 when nothing is new beyond the baseline")
    func passes() throws {
        try withTemporaryDirectory { directory in
            let baseline = runTool(
                ["baseline", Fixtures.url("shop-report.json").path, "-o", "accepted.json"], in: directory.path)
            #expect(baseline.code == 0)
            let run = runTool(
                ["gate", Fixtures.url("shop-report.json").path, "--baseline", "accepted.json"], in: directory.path)
            #expect(run.code == 0)
            #expect(run.stdout.isEmpty)
            #expect(
                run.stderrLines.first
                    == "reactive-diag gate: PASS: no new findings beyond the baseline (--fail-on error)")
            #expect(run.stderr.contains("baseline: 6 findings match it (5 fingerprints); 0 entries fixed since"))
            #expect(run.stderr.contains("suppressed: 1 finding (never gated)"))
        }
    }

    @Test("exit 1 with new findings, and the verdict, SARIF, JUnit and annotations match their golden files")
    func newFindingsGolden() throws {
        try withTemporaryDirectory { directory in
            let run = gateBothShards(
                ["--sarif", "out/gate.sarif", "--junit", "out/gate.xml", "--github-annotations"], in: directory)
            #expect(run.code == 1)
            try Golden.assertMatches(run.stderr, "gate-verdict.txt")
            try Golden.assertMatches(run.stdout, "gate-annotations.txt")
            try Golden.assertMatches(try readText(directory.appendingPathComponent("out/gate.sarif")), "gate.sarif")
            try Golden.assertMatches(try readText(directory.appendingPathComponent("out/gate.xml")), "gate-junit.xml")
        }
    }

    @Test("the verdict names what is new, what matched and what the baseline has that is gone")
    func verdict() throws {
        try withTemporaryDirectory { directory in
            let run = gateBothShards([], in: directory)
            #expect(run.code == 1)
            #expect(
                run.stderrLines.first
                    == "reactive-diag gate: FAIL: 3 new findings (3 fingerprints) beyond the baseline (--fail-on error)"
            )
            for kind in ["concurrentDelivery", "demandExceeded", "wrongThread"] {
                #expect(run.stderr.contains("ERROR \(kind) ×1"))
            }
            #expect(run.stderr.contains("1 entry fixed since"))
            #expect(run.stderr.contains("a8d4e2f0c6b13579 error observerNotRemoved \"cart.badge\""))
        }
    }

    @Test("without a baseline every considered finding is new")
    func noBaseline() {
        let run = runTool(["gate", "shop-report.json"])
        #expect(run.code == 1)
        #expect(
            run.stderrLines.first
                == "reactive-diag gate: FAIL: 6 new findings (5 fingerprints) (no baseline) (--fail-on error)")
        #expect(run.stderr.contains("also new, not gated by --fail-on error: 1 warning, 1 info"))
    }

    @Test("--fail-on takes a severity threshold, kinds, or both")
    func failOn() {
        func code(_ failOn: String) -> Int32 {
            runTool(["gate", "shop-report.json", "--baseline", "shop-baseline.json", "--fail-on", failOn]).code
        }
        #expect(code("error") == 1, "concurrentDelivery and wrongThread are new errors")
        #expect(code("leakedSubscription,longAction") == 0, "those kinds are all in the baseline")
        #expect(code("wrongThread") == 1)
        #expect(code("info,leakedSubscription") == 1)
        let warnings = runTool(["gate", "shop-report.json", "--fail-on", "warning"])
        #expect(warnings.stderrLines.first?.contains("7 new findings") == true, "6 errors and the warning")

        let typo = runTool([
            "gate", "shop-report.json", "--baseline", "shop-baseline.json", "--fail-on", "leakedSubscripton",
        ])
        #expect(typo.code == 0)
        #expect(
            typo.stderrLines.first
                == "reactive-diag: note: --fail-on: 'leakedSubscripton' is not a known finding kind and no finding has it"
        )

        let empty = runTool(["gate", "shop-report.json", "--fail-on", ","])
        #expect(empty.code == 2)
        #expect(
            empty.stderrLines == [
                "reactive-diag: --fail-on: expected a severity (error, warning, info) or finding kinds, got ','"
            ])
    }

    @Test("--max-live fails when more resources were alive at the end")
    func maxLive() throws {
        try withTemporaryDirectory { directory in
            let accepted = runTool(
                ["baseline", Fixtures.url("shop-report.json").path, "-o", "b.json"], in: directory.path)
            #expect(accepted.code == 0)
            let within = runTool(
                ["gate", Fixtures.url("shop-report.json").path, "--baseline", "b.json", "--max-live", "5"],
                in: directory.path)
            #expect(within.code == 0)
            #expect(within.stderr.contains("live at end: 5 resources, within --max-live 5"))
            let over = runTool(
                [
                    "gate", Fixtures.url("shop-report.json").path, "--baseline", "b.json", "--max-live", "4",
                    "--junit", "j.xml", "--github-annotations",
                ], in: directory.path)
            #expect(over.code == 1)
            #expect(
                over.stderrLines.first
                    == "reactive-diag gate: FAIL: no new findings beyond the baseline (--fail-on error)")
            #expect(over.stderr.contains("live at end: 5 resources, more than --max-live 4"))
            #expect(
                over.stdout.hasPrefix(
                    "::error title=reactive-diag%3A live resources at end::5 resources alive at the end"))
            let junit = try readText(directory.appendingPathComponent("j.xml"))
            #expect(junit.contains("tests=\"1\" failures=\"1\""))
            #expect(junit.contains("<testcase name=\"liveResourcesAtEnd\" classname=\"reactive-diag\">"))
        }
    }

    @Test("exit 2 for an unusable report or baseline, naming the file")
    func unusableInputs() throws {
        try withTemporaryDirectory { directory in
            try Data("{\"schemaVersion\": 1, \"tool\": ".utf8).write(to: directory.appendingPathComponent("cut.json"))
            try Data("{\"entries\": []}".utf8).write(to: directory.appendingPathComponent("not-a-baseline.json"))
            try Data("{\"baselineVersion\": 9, \"entries\": []}".utf8).write(
                to: directory.appendingPathComponent("future.json"))
            try Data("[".utf8).write(to: directory.appendingPathComponent("broken.json"))
            try Data("{\"baselineVersion\": 1, \"entries\": [{\"fingerprint\": 7}]}".utf8)
                .write(to: directory.appendingPathComponent("mistyped.json"))
            let report = Fixtures.url("shop-report.json").path

            let cut = runTool(["gate", "cut.json"], in: directory.path)
            #expect(cut.code == 2)
            #expect(cut.stderrLines.count == 1)
            #expect(cut.stderrLines.first?.hasPrefix("reactive-diag: cut.json: not valid JSON") == true)

            let cases: [(String, String)] = [
                (
                    "not-a-baseline.json",
                    "reactive-diag: not-a-baseline.json: not a reactive-diag baseline: it has no baselineVersion field"
                ),
                (
                    "future.json",
                    "reactive-diag: future.json: baselineVersion 9 is not supported (this tool knows version 1)"
                ),
                ("missing.json", "reactive-diag: missing.json: cannot read the baseline: no such file or directory"),
                (".", "reactive-diag: .: cannot read the baseline: it is a directory"),
                (
                    "mistyped.json",
                    "reactive-diag: mistyped.json: invalid baseline: entries[0].fingerprint is not a String"
                ),
                ("broken.json", "reactive-diag: broken.json: not valid JSON (truncated or corrupt?):"),
            ]
            for (file, message) in cases {
                let run = runTool(["gate", report, "--baseline", file], in: directory.path)
                #expect(run.code == 2, "\(file)")
                #expect(run.stderrLines.count == 1, "\(file): \(run.stderr)")
                #expect(run.stderrLines.first?.hasPrefix(message) == true, "\(file): \(run.stderr)")
                #expect(run.stdout.isEmpty)
            }
        }
    }

    @Test("SARIF is valid against the official 2.1.0 schema: rule indexes, help, fingerprints, locations and stacks")
    func sarifStructure() async throws {
        let directory = try TemporaryDirectory()
        do {
            let run = gateBothShards(["--sarif", "gate.sarif", "--max-live", "1"], in: directory.url)
            #expect(run.code == 1)
            let data = try Data(contentsOf: directory.url.appendingPathComponent("gate.sarif"))
            if let problems = try await SchemaValidators.sarifProblems(data) {
                #expect(problems == [])
            }

            let log = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect(log["$schema"] as? String == "https://json.schemastore.org/sarif-2.1.0.json")
            let run0 = try #require((log["runs"] as? [[String: Any]])?.first)
            let driver = try #require((run0["tool"] as? [String: Any])?["driver"] as? [String: Any])
            #expect(driver["name"] as? String == "reactive-diag")
            let rules = try #require(driver["rules"] as? [[String: Any]])
            let ruleIDs = rules.compactMap { $0["id"] as? String }
            #expect(ruleIDs == ruleIDs.sorted(), "rules sorted by id, so indexes are stable")
            #expect(ruleIDs.contains("leakedSubscription") && ruleIDs.contains("liveResourcesAtEnd"))
            for rule in rules {
                let help = rule["help"] as? [String: Any]
                #expect((help?["text"] as? String)?.isEmpty == false, "every rule has help: \(rule["id"] ?? "?")")
            }
            let results = try #require(run0["results"] as? [[String: Any]])
            #expect(
                results.map { $0["ruleId"] as? String } == [
                    "concurrentDelivery", "demandExceeded", "wrongThread", "liveResourcesAtEnd",
                ])
            let wrongThread = results[2]
            #expect(
                (wrongThread["partialFingerprints"] as? [String: String])?["reactiveDiagnostics/v1"]
                    == "c5e8f1a2b3d40e97")
            let location = try #require((wrongThread["locations"] as? [[String: Any]])?.first)
            let physical = try #require(location["physicalLocation"] as? [String: Any])
            #expect(
                (physical["artifactLocation"] as? [String: Any])?["uri"] as? String
                    == "Sources/Shop/ImageViewModel.swift")
            #expect((physical["artifactLocation"] as? [String: Any])?["uriBaseId"] as? String == "SRCROOT")
            #expect((physical["region"] as? [String: Any])?["startLine"] as? Int == 27)
            let stacks = try #require(wrongThread["stacks"] as? [[String: Any]])
            #expect(stacks.count == 1)
            #expect((stacks[0]["frames"] as? [Any])?.count == 9, "every frame, none folded")

            let concurrent = results[0]
            let logical = try #require((concurrent["locations"] as? [[String: Any]])?.first)
            #expect(logical["physicalLocation"] != nil, "the test frame has a file")
            #expect((concurrent["stacks"] as? [Any])?.count == 3, "allocation, event and related stacks")
            for result in results {
                let location = (result["locations"] as? [[String: Any]])?.first
                #expect(
                    location?["physicalLocation"] != nil,
                    "every result has a physical location: \(result["ruleId"] ?? "?")")
            }
        }
    }

    @Test("SARIF without file:line places the result in the binary, at the function's offset")
    func sarifBinaryLocation() async throws {
        let directory = try TemporaryDirectory()
        let run = runTool(
            ["gate", Fixtures.url("shop-report.json").path, "--fail-on", "longAction", "--sarif", "s.sarif"],
            in: directory.url.path)
        #expect(run.code == 1)
        let data = try Data(contentsOf: directory.url.appendingPathComponent("s.sarif"))
        if let problems = try await SchemaValidators.sarifProblems(data) {
            #expect(problems == [])
        }
        let log = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let result = try #require(((log["runs"] as? [[String: Any]])?.first?["results"] as? [[String: Any]])?.first)
        let location = try #require((result["locations"] as? [[String: Any]])?.first)
        let physical = try #require(location["physicalLocation"] as? [String: Any])
        #expect(
            (physical["artifactLocation"] as? [String: Any])?["uri"] as? String
                == "file:///src/shop/.build/x86_64-unknown-linux-gnu/debug/ShopPackageTests.xctest")
        #expect((physical["address"] as? [String: Any])?["relativeAddress"] as? Int == 0x1fb004)
        #expect(physical["region"] == nil, "no line to give")
        let logical = try #require((location["logicalLocations"] as? [[String: Any]])?.first)
        #expect(
            logical["fullyQualifiedName"] as? String
                == "CombineSchedulers.UIScheduler.schedule(options: ()?, _: () -> ()) -> ()")
        #expect(result["level"] as? String == "warning")
    }

    @Test("the SARIF schema validation catches broken SARIF (so passing it proves something)")
    func validatorCatchesProblems() async throws {
        let broken = """
            {"version": "2.0.0", "runs": [{"tool": {"driver": {"rules": [{"id": "a"}]}},
             "results": [{"ruleId": "b", "ruleIndex": 0, "level": "fatal", "stacks": [{"frames": [{"location": {"physicalLocation": {"region": {"startLine": 0}}}}]}]}]}]}
            """
        guard let problems = try await SchemaValidators.sarifProblems(Data(broken.utf8)) else { return }
        #expect(problems.contains { $0.hasPrefix("$.version:") })
        #expect(problems.contains { $0.contains("driver") && $0.contains("'name' is a required property") })
        #expect(problems.contains { $0.contains("'message' is a required property") })
        #expect(problems.contains { $0.contains("'fatal' is not one of") })
        #expect(problems.contains { $0.contains("startLine") && $0.contains("less than the minimum of 1") })
    }

    @Test("JUnit is valid against Jenkins' JUnit XSD, with file and line on each failing test case")
    func junitSchema() async throws {
        let directory = try TemporaryDirectory()
        let run = gateBothShards(["--junit", "gate.xml", "--max-live", "1"], in: directory.url)
        #expect(run.code == 1)
        let document = try readText(directory.url.appendingPathComponent("gate.xml"))
        if let problems = try await SchemaValidators.junitProblems(document) {
            #expect(problems == [])
        }
        #expect(
            document.contains(
                "classname=\"ShopTests.ImageLoaderTests.testLoadDeliversOnMainQueue()\" "
                    + "file=\"Sources/Shop/ImageViewModel.swift\" line=\"27\""))
        let passing = runTool(
            ["gate", Fixtures.url("shop-report.json").path, "--fail-on", "leakedResource", "--junit", "pass.xml"],
            in: directory.url.path)
        #expect(passing.code == 0)
        if let problems = try await SchemaValidators.junitProblems(
            try readText(directory.url.appendingPathComponent("pass.xml")))
        {
            #expect(problems == [])
        }
        if let problems = try await SchemaValidators.junitProblems("<testsuite name=\"x\"><testcase/></testsuite>") {
            #expect(!problems.isEmpty, "the XSD rejects what it should")
        }
    }

    @Test("GitHub annotations carry file, line, col and title; the job summary is a Markdown table")
    func annotationsAndJobSummary() throws {
        try withTemporaryDirectory { directory in
            let summary = directory.appendingPathComponent("summary.md")
            try Data("# earlier step\n".utf8).write(to: summary)
            let run = runTool(
                [
                    "gate", Fixtures.url("shop-report.json").path, Fixtures.url("shop-shard-2.json").path,
                    "--baseline", Fixtures.url("shop-baseline.json").path, "--source-root", "/src/shop",
                    "--github-annotations", "--max-annotations", "2",
                ],
                environment: ["GITHUB_STEP_SUMMARY": summary.path], in: directory.path)
            #expect(run.code == 1)
            let lines = run.stdout.split(separator: "\n").map(String.init)
            #expect(lines.count == 3, "two annotations and a notice for the rest")
            #expect(
                lines[0].hasPrefix(
                    "::error file=Tests/ShopTests/ImageLoaderTests.swift,line=48,col=9,title=concurrentDelivery"))
            #expect(lines[2].hasPrefix("::notice title=reactive-diag::1 more new fingerprint not annotated"))
            let text = try readText(summary)
            #expect(
                text.hasPrefix(
                    "# earlier step\n### reactive-diag gate: FAIL — 3 new findings (3 fingerprints) beyond the baseline"
                ))
            #expect(text.contains("| severity | kind | label | where | tests | count |"))
            #expect(text.contains("| error | wrongThread | `image.view` | `Sources/Shop/ImageViewModel.swift:27` |"))
        }
    }

    @Test("output is deterministic: the same inputs give the same bytes")
    func deterministic() throws {
        try withTemporaryDirectory { directory in
            let first = gateBothShards(
                ["--sarif", "a.sarif", "--junit", "a.xml", "--github-annotations"], in: directory)
            let second = gateBothShards(
                ["--sarif", "b.sarif", "--junit", "b.xml", "--github-annotations"], in: directory)
            #expect(first.stdout == second.stdout && first.stderr == second.stderr)
            for (a, b) in [("a.sarif", "b.sarif"), ("a.xml", "b.xml")] {
                let first = try Data(contentsOf: directory.appendingPathComponent(a))
                let second = try Data(contentsOf: directory.appendingPathComponent(b))
                #expect(first == second, "\(a) and \(b)")
            }
        }
    }
}
