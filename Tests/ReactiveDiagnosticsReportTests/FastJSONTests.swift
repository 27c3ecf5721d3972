import Foundation
import ReactiveDiagnosticsReport
import Testing

/// The single-pass reader and writer must agree with the Codable model exactly.
@Suite("Report JSON reader and writer")
struct FastJSONTests {
    static var tricky: DiagnosticsReport {
        var report = ReportCodingTests.sample
        report.findings[0].message = "quote \" backslash \\ newline \n tab \t control \u{01} slash / unicode é ∑ 🚀"
        report.findings[0].label = "<script>alert(1)</script>"
        report.findings[0].details = ["z": "last", "a": "first", "emoji": "🚀"]
        report.findings[0].otherThread = ReportThread(id: UInt64.max, name: nil, isMainQueue: false)
        report.findings[0].time = 0.000123
        report.findings.append(
            ReportFinding(
                id: 2, kind: "valueAfterCancel", severity: .info, message: "m", fingerprint: "fedcba9876543210",
                policy: "record", time: 12, details: [:]))
        report.schedulers[0].latency = LatencySummary(
            count: 3, minNanos: 1, maxNanos: 9_000_000_000, meanNanos: 1234.5, p50Nanos: 2, p90Nanos: 3, p99Nanos: 4,
            buckets: [HistogramBucket(lowerNanos: 0, upperNanos: 16, count: 3)])
        report.schedulers[0].threads = [ThreadCount(thread: "main queue", isMainQueue: true, count: 3)]
        report.schedulers[0].expectation = "main queue"
        report.droppedFindings = 7
        return report
    }

    static func codableEncoded(_ report: DiagnosticsReport) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(ReportDates.format(date))
        }
        return try encoder.encode(report)
    }

    static func codableDecoded(_ data: Data) throws -> DiagnosticsReport {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            return ReportDates.parse(try container.decode(String.self))!
        }
        return try decoder.decode(DiagnosticsReport.self, from: data)
    }

    @Test func writerOutputDecodesWithCodable() throws {
        let report = Self.tricky
        #expect(try Self.codableDecoded(report.encoded()) == report)
    }

    @Test func codableOutputDecodesWithTheReader() throws {
        let report = Self.tricky
        #expect(try DiagnosticsReport.decode(Self.codableEncoded(report), source: "codable") == report)
    }

    @Test func prettyAndCompactAreTheSameDocument() throws {
        let report = Self.tricky
        #expect(try DiagnosticsReport.decode(report.encoded(prettyPrinted: true), source: "pretty") == report)
    }

    @Test func keysAreSortedLikeCodable() throws {
        // Same document, same key order; only number spelling may differ.
        let ours = try JSONSerialization.jsonObject(with: Self.tricky.encoded()) as? NSDictionary
        let theirs = try JSONSerialization.jsonObject(with: Self.codableEncoded(Self.tricky)) as? NSDictionary
        #expect(ours == theirs)
        let text = String(decoding: try Self.tricky.encoded(), as: UTF8.self)
        #expect(
            text.hasPrefix(
                "{\"droppedFindings\":7,\"findings\":[{\"allocationStack\":1,\"details\":{\"a\":\"first\",\"emoji\":\"🚀\",\"z\":\"last\"}"
            ))
    }

    @Test func readerAcceptsNullsUnknownMembersAndEscapes() throws {
        var object = try #require(
            try JSONSerialization.jsonObject(with: ReportCodingTests.sample.encoded()) as? [String: Any])
        object["futureField"] = ["nested": [1, 2, ["deep": true]], "text": "x"]
        var finding = try #require((object["findings"] as? [[String: Any]])?.first)
        finding["label"] = NSNull()
        finding["message"] = "\\u00e9 \\ud83d\\ude80"
        object["findings"] = [finding]
        let data = try JSONSerialization.data(withJSONObject: object)
        let report = try DiagnosticsReport.decode(data, source: "x")
        #expect(report.findings[0].label == nil)
        #expect(report.findings[0].message == "\\u00e9 \\ud83d\\ude80")
        let escaped = Data(#"{"schemaVersion":1}"#.utf8)
        #expect(throws: ReportError.self) { try DiagnosticsReport.decode(escaped, source: "x") }
        let unicode = String(decoding: try ReportCodingTests.sample.encoded(), as: UTF8.self)
            .replacingOccurrences(of: "\"still alive\"", with: #""\u00e9\ud83d\ude80\n""#)
        #expect(try DiagnosticsReport.decode(Data(unicode.utf8), source: "x").findings[0].message == "é🚀\n")
    }

    @Test(arguments: [
        (#"{"schemaVersion":1,"#, "not valid JSON (truncated or corrupt?): unexpected end of input"),
        (
            #"{"schemaVersion":1} trailing"#,
            "not valid JSON (truncated or corrupt?): unexpected content after the report"
        ),
        (#"{"schemaVersion":1,"x":"\q"}"#, "not valid JSON (truncated or corrupt?): invalid escape"),
        (#"{"schemaVersion":1.5}"#, "not a ReactiveDiagnostics report: schemaVersion is not a number"),
        (#"{"schemaVersion":1 "x":2}"#, "not valid JSON (truncated or corrupt?): expected ',' or '}'"),
        ("\"just a string\"", "not a ReactiveDiagnostics report: the top level is not a JSON object"),
        (#"{"schemaVersion":99999999999999999999}"#, "not a ReactiveDiagnostics report: schemaVersion is not a number"),
        (
            #"{"schemaVersion":2,"x":1,"schemaVersion":1}"#,
            "not a ReactiveDiagnostics report: schemaVersion appears more than once"
        ),
    ])
    func syntaxErrorsAreNamed(input: String, expected: String) throws {
        do {
            _ = try DiagnosticsReport.decode(Data(input.utf8), source: "f.json")
            Issue.record("accepted \(input)")
        } catch {
            #expect(error.description.hasPrefix("f.json: \(expected)"), "\(error.description)")
        }
    }

    @Test func wrongTypesNameTheirPath() throws {
        let text = String(decoding: try ReportCodingTests.sample.encoded(), as: UTF8.self)
        let cases = [
            (
                text.replacingOccurrences(of: "\"processID\":42", with: "\"processID\":\"42\""),
                "run.processID is not a number"
            ),
            (
                text.replacingOccurrences(of: "\"count\":1,\"kind\"", with: "\"count\":-1,\"kind\""),
                "a live subscription has a negative count"
            ),
            (
                text.replacingOccurrences(of: "\"category\":\"user\"", with: "\"category\":\"alien\""),
                "stacks[0].frames[0].category 'alien' is not one of user, framework, system, diagnostics"
            ),
            (
                text.replacingOccurrences(
                    of: "\"startTime\":\"2023-11-14T22:13:20.250Z\"", with: "\"startTime\":\"soon\""),
                "run.startTime 'soon' is not an ISO 8601 date"
            ),
        ]
        for (input, expected) in cases {
            #expect(throws: ReportError(source: "f.json", reason: .invalid(expected))) {
                try DiagnosticsReport.decode(Data(input.utf8), source: "f.json")
            }
        }
    }
}
