import Foundation
import ReactiveDiagnosticsReport
import Testing

@Suite("Report coding and validation")
struct ReportCodingTests {
    static let sample = DiagnosticsReport(
        run: RunInfo(
            processName: "xctest", processID: 42, startTime: Date(timeIntervalSince1970: 1_700_000_000.25),
            endTime: Date(timeIntervalSince1970: 1_700_000_010.5),
            tests: [TestRecord(name: "T.a", findings: 1, failed: true)]),
        findings: [
            ReportFinding(
                id: 1, kind: "leakedSubscription", severity: .error, message: "still alive", label: "feed",
                resourceKind: "subscription", test: "T.a", fingerprint: "0123456789abcdef", policy: "fail",
                allocationStack: 1, thread: ReportThread(id: 7, name: "main", isMainQueue: true), time: 1.5,
                details: ["count": "1"])
        ],
        ledger: LedgerSummary(
            kinds: [KindTotals(kind: "subscription", registered: 3, peak: 2, live: 1)],
            liveAtEnd: [LiveSite(kind: "subscription", label: "feed", stack: 1, count: 1, tests: ["T.a"])]),
        schedulers: [SchedulerSummary(label: "io", scheduled: 2, executed: 2)],
        stacks: [
            ReportStack(
                id: 1,
                frames: [
                    ReportFrame(
                        address: "0x1234", image: 0, offset: "0x234", function: "App.f() -> ()", module: "App",
                        category: .user)
                ], droppedFrames: 3)
        ],
        images: [ReportImage(id: 0, path: "/bin/app", buildID: "abcd")])

    @Test func roundTrips() throws {
        let data = try Self.sample.encoded()
        #expect(try DiagnosticsReport.decode(data, source: "x") == Self.sample)
        let pretty = try Self.sample.encoded(prettyPrinted: true)
        #expect(try DiagnosticsReport.decode(pretty, source: "x") == Self.sample)
    }

    @Test func encodingIsDeterministic() throws {
        #expect(try Self.sample.encoded() == Self.sample.encoded())
        let text = String(decoding: try Self.sample.encoded(), as: UTF8.self)
        #expect(text.contains("\"startTime\":\"2023-11-14T22:13:20.250Z\""))
        #expect(!text.contains("\\/"), "slashes are not escaped")
    }

    @Test func datesParseWithAndWithoutFractions() {
        #expect(ReportDates.parse("2023-11-14T22:13:20Z") == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(ReportDates.parse("2023-11-14T22:13:20.250Z") == Date(timeIntervalSince1970: 1_700_000_000.25))
        #expect(ReportDates.parse("2023-11-14T23:13:20.250+01:00") == Date(timeIntervalSince1970: 1_700_000_000.25))
        #expect(ReportDates.parse("yesterday") == nil)
        #expect(ReportDates.parse("2023-11-14T22:13:20") == nil)
        #expect(ReportDates.parse("2023-13-14T22:13:20Z") == nil)
        // Any date survives write/read cycles exactly.
        for seconds in [0.0, 1_763_704_030.123, 1_763_704_030.9995, 1_234_567_890.001] {
            let date = ReportDates.normalized(Date(timeIntervalSince1970: seconds))
            #expect(ReportDates.parse(ReportDates.format(date)) == date)
            #expect(ReportDates.format(ReportDates.parse(ReportDates.format(date))!) == ReportDates.format(date))
        }
    }

    func error(_ text: String) -> String? {
        do {
            _ = try DiagnosticsReport.decode(Data(text.utf8), source: "r.json")
            return nil
        } catch {
            return error.description
        }
    }

    @Test func hostileInputsGiveOneLineErrorsNamingTheSource() throws {
        let valid = String(decoding: try Self.sample.encoded(), as: UTF8.self)
        let cases: [(String, String)] = [
            ("", "r.json: the file is empty, not a report"),
            ("  \n", "r.json: the file is empty, not a report"),
            (String(valid.prefix(valid.count / 2)), "r.json: not valid JSON (truncated or corrupt?)"),
            ("[1, 2]", "r.json: not a ReactiveDiagnostics report: the top level is not a JSON object"),
            ("{\"hello\": 1}", "r.json: not a ReactiveDiagnostics report: it has no schemaVersion field"),
            ("{\"schemaVersion\": \"one\"}", "r.json: not a ReactiveDiagnostics report: schemaVersion is not a number"),
            (
                "{\"schemaVersion\": 4}",
                "r.json: report schemaVersion 4 is not supported (this reader knows versions 1 to 3)"
            ),
            ("{\"schemaVersion\": 1}", "r.json: invalid report: missing field 'tool'"),
            (
                String(repeating: "[", count: 100_000),
                "r.json: not a ReactiveDiagnostics report: the top level is not a JSON object"
            ),
            (
                "{\"schemaVersion\":1,\"x\":" + String(repeating: "[", count: 100_000),
                "r.json: not valid JSON (truncated or corrupt?): nesting deeper than 64 levels"
            ),
            (
                valid.replacingOccurrences(of: "\"allocationStack\":1", with: "\"allocationStack\":9"),
                "r.json: invalid report: finding 1 refers to allocationStack 9, which is not in the report"
            ),
            (
                valid.replacingOccurrences(of: "\"severity\":\"error\"", with: "\"severity\":\"fatal\""),
                "r.json: invalid report: findings[0].severity"
            ),
        ]
        for (input, expected) in cases {
            let message = try #require(error(input), "accepted: \(input.prefix(40))")
            #expect(message.hasPrefix(expected), "\(message)")
            #expect(!message.contains("\n"))
        }
    }

    @Test func loadChecksTheFileFirst() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rd-load-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(throws: ReportError.self) {
            try DiagnosticsReport.load(from: directory.appendingPathComponent("missing.json"))
        }
        #expect(throws: ReportError(source: directory.path, reason: .unreadable("it is a directory"))) {
            try DiagnosticsReport.load(from: directory)
        }
        let big = directory.appendingPathComponent("big.json")
        try Data(count: 2_000).write(to: big)
        #expect(throws: ReportError(source: big.path, reason: .tooLarge(bytes: 2_000, limit: 1_000))) {
            try DiagnosticsReport.load(from: big, maxBytes: 1_000)
        }
        let good = directory.appendingPathComponent("good.json")
        try Self.sample.encoded().write(to: good)
        #expect(try DiagnosticsReport.load(from: good) == Self.sample)
    }

    @Test func severitiesAreOrdered() {
        #expect(ReportSeverity.info < .warning && ReportSeverity.warning < .error)
        #expect(ReportSeverity.allCases.max() == .error)
    }
}
