import Foundation
import ReactiveDiagTool
import Testing

/// Unusable inputs: one line naming the file and what is wrong, exit code 2, no crash,
/// nothing on standard output, for every command that reads reports.
@Suite("hostile inputs")
struct HostileInputTests {
    /// Runs every reading command on `input` and checks the single error line.
    private func expectRejected(
        _ input: String, in directory: URL, startsWith expected: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let commands: [[String]] = [
            ["show", input], ["show", input, "--format", "json"], ["html", input, "-o", "page.html"], ["gate", input],
            ["baseline", input, "-o", "b.json"], ["merge", input, "-o", "m.json"],
        ]
        for command in commands {
            let run = runTool(command, in: directory.path)
            #expect(run.code == 2, "\(command.joined(separator: " "))", sourceLocation: sourceLocation)
            #expect(run.stdout.isEmpty, "\(command[0]) wrote nothing on stdout", sourceLocation: sourceLocation)
            #expect(
                run.stderrLines.count == 1, "one line from \(command[0]): \(run.stderr)", sourceLocation: sourceLocation
            )
            #expect(
                run.stderr.hasPrefix("reactive-diag: " + expected),
                "\(command[0]): \(run.stderr)", sourceLocation: sourceLocation)
        }
        for output in ["page.html", "b.json", "m.json"] {
            #expect(
                !FileManager.default.fileExists(atPath: directory.appendingPathComponent(output).path),
                "no \(output) written", sourceLocation: sourceLocation)
        }
    }

    private func write(_ text: String, _ name: String, in directory: URL) throws {
        try Data(text.utf8).write(to: directory.appendingPathComponent(name))
    }

    @Test("malformed and truncated JSON")
    func malformed() throws {
        try withTemporaryDirectory { directory in
            try write("{\"schemaVersion\": 1, \"findings\": [}", "malformed.json", in: directory)
            expectRejected(
                "malformed.json", in: directory, startsWith: "malformed.json: not valid JSON (truncated or corrupt?):")
            let full = try readText(Fixtures.url("shop-report.json"))
            try write(String(full.prefix(full.count / 2)), "truncated.json", in: directory)
            expectRejected(
                "truncated.json", in: directory, startsWith: "truncated.json: not valid JSON (truncated or corrupt?):")
        }
    }

    @Test("an empty file and a file of whitespace")
    func empty() throws {
        try withTemporaryDirectory { directory in
            try write("", "empty.json", in: directory)
            expectRejected("empty.json", in: directory, startsWith: "empty.json: the file is empty, not a report")
            try write(" \n\t\n", "blank.json", in: directory)
            expectRejected("blank.json", in: directory, startsWith: "blank.json: the file is empty, not a report")
        }
    }

    @Test("a report of an unknown schema version")
    func wrongVersion() throws {
        try withTemporaryDirectory { directory in
            let full = try readText(Fixtures.url("shop-report.json"))
            try write(
                full.replacingOccurrences(of: "\"schemaVersion\": 1", with: "\"schemaVersion\": 4"), "v4.json",
                in: directory)
            expectRejected(
                "v4.json", in: directory,
                startsWith: "v4.json: report schemaVersion 4 is not supported (this reader knows versions 1 to 3)")
        }
    }

    @Test("JSON that is not a report")
    func notAReport() throws {
        try withTemporaryDirectory { directory in
            try write("[1, 2, 3]", "array.json", in: directory)
            expectRejected(
                "array.json", in: directory,
                startsWith: "array.json: not a ReactiveDiagnostics report: the top level is not a JSON object")
            try write("{\"name\": \"package.json\", \"version\": \"1.0.0\"}", "package.json", in: directory)
            expectRejected(
                "package.json", in: directory,
                startsWith: "package.json: not a ReactiveDiagnostics report: it has no schemaVersion field")
            try write("{\"schemaVersion\": 1}", "hollow.json", in: directory)
            expectRejected("hollow.json", in: directory, startsWith: "hollow.json: invalid report: missing field")
        }
    }

    @Test("a report whose references dangle")
    func danglingStack() throws {
        try withTemporaryDirectory { directory in
            let full = try readText(Fixtures.url("shop-report.json"))
            try write(
                full.replacingOccurrences(of: "\"allocationStack\": 3,", with: "\"allocationStack\": 99,"),
                "dangling.json", in: directory)
            expectRejected(
                "dangling.json", in: directory,
                startsWith:
                    "dangling.json: invalid report: finding 2 refers to allocationStack 99, which is not in the report")
        }
    }

    @Test("source lines that cannot be: a line 0, counts that do not add up, an unknown state")
    func impossibleSourceLines() throws {
        try withTemporaryDirectory { directory in
            let full = try readText(Fixtures.url("shop-report.json"))
            let version2 = full.replacingOccurrences(of: "\"schemaVersion\": 1,", with: "\"schemaVersion\": 2,")
            try write(
                version2.replacingOccurrences(of: "\"line\": 27,", with: "\"line\": 0,"), "line0.json", in: directory)
            expectRejected("line0.json", in: directory, startsWith: "line0.json: invalid report: stack ")
            func withLines(_ object: String) -> String {
                version2.replacingOccurrences(
                    of: "\"schemaVersion\": 2,", with: "\"schemaVersion\": 2, \"sourceLines\": \(object),")
            }
            try write(
                withLines("{\"state\": \"resolved\", \"userFrames\": 2, \"resolvedUserFrames\": 5}"), "counts.json",
                in: directory)
            expectRejected(
                "counts.json", in: directory,
                startsWith: "counts.json: invalid report: sourceLines counts 5 resolved of 2 user frames")
            try write(
                withLines("{\"state\": \"perfect\", \"userFrames\": 2, \"resolvedUserFrames\": 2}"), "state.json",
                in: directory)
            expectRejected(
                "state.json", in: directory,
                startsWith:
                    "state.json: invalid report: sourceLines.state 'perfect' is not one of resolved, partial, missing")
            try write(withLines("[1]"), "shape.json", in: directory)
            expectRejected("shape.json", in: directory, startsWith: "shape.json: invalid report: sourceLines")
        }
    }

    @Test("a directory without reports, a missing file, a directory named as a file")
    func paths() throws {
        try withTemporaryDirectory { directory in
            try FileManager.default.createDirectory(
                at: directory.appendingPathComponent("empty"), withIntermediateDirectories: true)
            try write("not json", "empty/readme.txt", in: directory)
            expectRejected("empty", in: directory, startsWith: "empty: no reports (*.json files) in the directory")
            expectRejected("missing.json", in: directory, startsWith: "missing.json: no such file or directory")
        }
    }

    @Test("deeply nested JSON does not exhaust the stack")
    func deeplyNested() throws {
        try withTemporaryDirectory { directory in
            try write(String(repeating: "[", count: 200_000), "nested.json", in: directory)
            expectRejected(
                "nested.json", in: directory,
                startsWith: "nested.json: not a ReactiveDiagnostics report: the top level is not a JSON object")
            try write(String(repeating: "{\"a\":", count: 100_000), "objects.json", in: directory)
            expectRejected(
                "objects.json", in: directory,
                startsWith: "objects.json: not valid JSON (truncated or corrupt?): nesting deeper")
        }
    }

    @Test("one bad input among good ones names the bad one")
    func badAmongGood() throws {
        try withTemporaryDirectory { directory in
            try write("{", "bad.json", in: directory)
            let run = runTool(["show", Fixtures.url("shop-report.json").path, "bad.json"], in: directory.path)
            #expect(run.code == 2)
            #expect(run.stderrLines.count == 1)
            #expect(run.stderr.hasPrefix("reactive-diag: bad.json: not valid JSON"))
        }
    }

    @Test("a 100 MB input: over --max-input-mb, and truncated under the default limit")
    func veryLarge() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("huge.json")
            // A report that starts well and never ends: 100 MB of one string value.
            #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
            let handle = try FileHandle(forWritingTo: url)
            try handle.write(contentsOf: Data("{\"schemaVersion\": 1, \"padding\": \"".utf8))
            let chunk = Data(repeating: UInt8(ascii: "x"), count: 1 << 20)
            for _ in 0..<100 { try handle.write(contentsOf: chunk) }
            try handle.close()
            let size = try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)
            #expect(size.intValue > 100 * (1 << 20))

            let limited = runTool(["show", "huge.json", "--max-input-mb", "64"], in: directory.path)
            #expect(limited.code == 2)
            #expect(
                limited.stderrLines == [
                    "reactive-diag: huge.json: the file has \(size.intValue) bytes, more than the 67108864-byte limit for a report"
                ])
            let truncated = runTool(["gate", "huge.json"], in: directory.path)
            #expect(truncated.code == 2)
            #expect(truncated.stderrLines.count == 1)
            #expect(truncated.stderr.hasPrefix("reactive-diag: huge.json: not valid JSON (truncated or corrupt?)"))
        }
    }

    @Test("command-line mistakes exit 2 with ArgumentParser's message; help and --version exit 0")
    func commandLine() {
        let unknown = runTool(["shwo", "x.json"])
        #expect(unknown.code == 2)
        #expect(unknown.stderr.contains("Error:"))
        let missing = runTool(["show"])
        #expect(missing.code == 2)
        #expect(missing.stderr.contains("Missing expected argument '<report> ...'"))
        let badOption = runTool(["show", "shop-report.json", "--format", "xml"])
        #expect(badOption.code == 2)
        #expect(badOption.stdout.isEmpty)
        #expect(runTool(["gate", "shop-report.json", "--max-live", "-1"]).code == 2)
        #expect(runTool(["show", "shop-report.json", "--max-input-mb", "0"]).code == 2)
        #expect(runTool(["merge", "shop-report.json"]).code == 2, "-o is required")

        let help = runTool(["--help"])
        #expect(help.code == 0)
        #expect(help.stdout.contains("SUBCOMMANDS:"))
        #expect(help.stdout.contains("Exit codes"))
        let subcommandHelp = runTool(["help", "gate"])
        #expect(subcommandHelp.code == 0)
        #expect(subcommandHelp.stdout.contains("--fail-on"))
        let version = runTool(["--version"])
        #expect(version.code == 0)
        #expect(version.stdout == ReactiveDiag.version + "\n")
    }
}
