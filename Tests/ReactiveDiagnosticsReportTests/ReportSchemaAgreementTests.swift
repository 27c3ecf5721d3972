import Foundation
import ReactiveDiagnosticsReport
import Testing

/// The report's fields are declared in one place, `Docs/report.schema.json`; the Swift model
/// (Codable), the single-pass writer and the single-pass reader are held to it here. A report
/// with every field set is written both ways: each object's members must be exactly the schema's
/// properties for that object, and it must read back unchanged. A field added to one and not the
/// others fails this test.
@Suite("Report fields agree with the schema")
struct ReportSchemaAgreementTests {
    static let schemaURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Docs/report.schema.json")

    /// A report in which every optional field is set and every array holds an element.
    static var complete: DiagnosticsReport {
        var report = FastJSONTests.tricky
        report.findings = [report.findings[0]]
        report.run.arguments = ["--parallel"]
        report.schedulers[0].duration = report.schedulers[0].latency
        report.findings[0].resourceKind = "subscription"
        report.findings[0].test = "T.test()"
        report.findings[0].suppressedBy = "leakedSubscription:*"
        report.findings[0].eventStack = report.stacks[0].id
        report.findings[0].relatedStack = report.stacks[0].id
        report.findings[0].thread = ReportThread(id: 3, name: "worker", queue: "com.example.feed", isMainQueue: false)
        report.findings[0].otherThread = ReportThread(id: 4, name: "other", queue: "q", isMainQueue: true)
        report.stacks[0].frames[0] = ReportFrame(
            address: "0x1", image: report.images[0].id, offset: "0x10", symbol: "$s1A", function: "A.a()", module: "A",
            category: .user, file: "/src/A.swift", line: 3, column: 4)
        report.images[0].buildID = "abcd"
        report.run.tests = [TestRecord(name: "T.test()", findings: 1, failed: true)]
        report.ledger = LedgerSummary(
            kinds: [KindTotals(kind: "subscription", registered: 2, peak: 2, live: 1)],
            liveAtEnd: [LiveSite(kind: "subscription", label: "feed", stack: report.stacks[0].id, count: 1, tests: ["T.test()"])])
        report.sourceLines = SourceLineStatus(
            state: .partial, userFrames: 2, resolvedUserFrames: 1, resolver: "llvm-symbolizer", reason: "no debug info")
        return report
    }

    /// The properties the schema declares for the object at `schema`, with the schema of each.
    func properties(_ schema: [String: Any], root: [String: Any]) -> [String: [String: Any]]? {
        let resolved = resolve(schema, root: root)
        return resolved["properties"] as? [String: [String: Any]]
    }

    func resolve(_ schema: [String: Any], root: [String: Any]) -> [String: Any] {
        guard let reference = schema["$ref"] as? String, reference.hasPrefix("#/$defs/"),
            let target = (root["$defs"] as? [String: Any])?[String(reference.dropFirst(8))] as? [String: Any]
        else { return schema }
        return resolve(target, root: root)
    }

    /// Every object in `value` has exactly the members its schema declares.
    func check(_ value: Any, _ schema: [String: Any], root: [String: Any], path: String, problems: inout [String]) {
        let resolved = resolve(schema, root: root)
        if let object = value as? [String: Any] {
            guard let declared = properties(resolved, root: root) else { return }  // a free-form map (details)
            let written = Set(object.keys)
            let missing = Set(declared.keys).subtracting(written).sorted()
            let extra = written.subtracting(declared.keys).sorted()
            if !missing.isEmpty { problems.append("\(path): the schema declares \(missing), not written") }
            if !extra.isEmpty { problems.append("\(path): \(extra) written, not in the schema") }
            for (key, member) in object {
                if let memberSchema = declared[key] { check(member, memberSchema, root: root, path: "\(path).\(key)", problems: &problems) }
            }
        } else if let array = value as? [Any], let items = resolved["items"] as? [String: Any] {
            #expect(!array.isEmpty, "\(path) is empty: the complete report should exercise it")
            for (index, element) in array.enumerated() {
                check(element, items, root: root, path: "\(path)[\(index)]", problems: &problems)
            }
        }
    }

    @Test func theWriterAndTheModelWriteExactlyTheSchemasFields() throws {
        let root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: Self.schemaURL)) as? [String: Any])
        let report = Self.complete
        for (name, data) in [("writer", try report.encoded()), ("Codable", try FastJSONTests.codableEncoded(report))] {
            let object = try JSONSerialization.jsonObject(with: data)
            var problems: [String] = []
            check(object, root, root: root, path: "$", problems: &problems)
            #expect(problems.isEmpty, "\(name): \(problems)")
        }
    }

    @Test func theReaderReadsEveryFieldBack() throws {
        let report = Self.complete
        #expect(report.validationProblem() == nil)
        let decoded = try DiagnosticsReport.decode(try report.encoded(), source: "complete")
        #expect(decoded.findings == report.findings)
        #expect(decoded.stacks == report.stacks && decoded.images == report.images)
        #expect(decoded.ledger == report.ledger && decoded.schedulers == report.schedulers)
        #expect(decoded.run == report.run && decoded.sourceLines == report.sourceLines)
        #expect(decoded == report)
    }
}
