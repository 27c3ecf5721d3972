import Foundation
import ReactiveDiagTool
import ReactiveDiagnosticsReport
import Testing

/// The tool's fast reader must give exactly what the report module's decoder gives.
@Suite("fast report reader")
struct FastReportReaderTests {
    private func expectSame(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) {
        expectSame(Data(json.utf8), sourceLocation: sourceLocation)
    }

    private func expectSame(_ data: Data, sourceLocation: SourceLocation = #_sourceLocation) {
        let official = Result { () throws(ReportError) in try DiagnosticsReport.decode(data, source: "r.json") }
        let fast = Result { () throws(ReportError) in try FastReportReader.decode(data, source: "r.json") }
        #expect(fast == official, sourceLocation: sourceLocation)
    }

    @Test("the fixtures decode identically", arguments: ["shop-report.json", "shop-shard-2.json", "hostile-report.json"])
    func fixtures(name: String) throws {
        let data = try Fixtures.data(name)
        expectSame(data)
        #expect(FastReportReader.parse(data) != nil, "read by the fast path, not handed to Foundation")
    }

    @Test("a generated report of 5,000 findings decodes identically")
    func generated() throws {
        let data = try ScaleTests.report(findings: 5_000, fingerprints: 700).encoded()
        expectSame(data)
        #expect(FastReportReader.parse(data) != nil)
    }

    @Test("unusual but valid JSON: escapes, surrogate pairs, nulls, unknown keys, exponents, whitespace")
    func unusualInput() throws {
        var text = try String(decoding: Fixtures.data("shop-shard-2.json"), as: UTF8.self)
        text = text.replacingOccurrences(of: "\"label\": \"search.results\"", with: "\"label\": \"s\\u00e9arch \\ud83d\\ude00 \\/ \\\"q\\\" \\t\"")
        text = text.replacingOccurrences(of: "\"resourceKind\": \"subscription\",", with: "\"resourceKind\": null, \"future\": {\"a\": [1, 2.5e3, true, null]},")
        text = text.replacingOccurrences(of: "\"time\": 0.221", with: "\"time\": 2.21E-1")
        text = text.replacingOccurrences(of: "\n", with: "\r\n\t ")
        expectSame(text)
        let report = try #require(FastReportReader.parse(Data(text.utf8)), "the fast path reads it")
        #expect(report.findings[0].label == "séarch 😀 / \"q\" \t")
        #expect(report.findings[1].resourceKind == nil)
        #expect(report.findings[0].time == 0.221)
    }

    @Test("input the fast reader leaves to Foundation gets Foundation's answer")
    func fallbacks() throws {
        let text = String(decoding: try Fixtures.data("shop-shard-2.json"), as: UTF8.self)
        // A duplicate key (Foundation's two parsers disagree on which wins), an integral
        // float for an integer, a wrong type, a missing field, a dangling stack, a future
        // version, trailing garbage, and invalid UTF-8.
        let duplicate = text.replacingOccurrences(of: "\"droppedFindings\": 0", with: "\"droppedFindings\": 0, \"droppedFindings\": 3")
        #expect(FastReportReader.parse(Data(duplicate.utf8)) == nil)
        expectSame(duplicate)
        expectSame(text.replacingOccurrences(of: "\"processCount\": 1", with: "\"processCount\": 1.0"))
        expectSame(text.replacingOccurrences(of: "\"processCount\": 1", with: "\"processCount\": \"1\""))
        expectSame(text.replacingOccurrences(of: "\"processCount\": 1,", with: ""))
        expectSame(text.replacingOccurrences(of: "\"allocationStack\": 9", with: "\"allocationStack\": 77"))
        expectSame(text.replacingOccurrences(of: "\"schemaVersion\": 1", with: "\"schemaVersion\": 7"))
        expectSame(text + "]")
        var bytes = Data(text.utf8)
        if let range = bytes.range(of: Data("search.results".utf8)) {
            bytes[range.lowerBound] = 0xFF
        }
        expectSame(bytes)
        expectSame(String(repeating: "[", count: 10_000))
        expectSame("")
    }
}
