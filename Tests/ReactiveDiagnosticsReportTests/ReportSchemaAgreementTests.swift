import Foundation
import ReactiveDiagnosticsReport
import Testing

/// The report's fields are declared once, in the field tables (`Sources/ReactiveDiagnosticsReport/
/// Fields/ReportFields.swift`) the single-pass writer and reader are generated from
/// (`ReportFieldCodeTests`). This test is driven from the same tables: `Docs/report.schema.json`
/// must declare exactly each table's members, with the same presence and shape (enum values
/// included), and the `Codable` model must encode exactly them; a report with every field set
/// must read back unchanged. A field added to the
/// table and not to the schema (or the model), or the other way round, fails here.
@Suite("Report fields agree with the field tables")
struct ReportSchemaAgreementTests {
    static let schemaURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Docs/report.schema.json")

    /// A report in which every optional field is set and every array holds an element.
    static var complete: DiagnosticsReport {
        var report = FastJSONTests.tricky
        report.findings = [report.findings[0]]
        report.run.arguments = ["--parallel"]
        report.schedulers[0].duration = report.schedulers[0].latency
        report.schedulers[0].instances = 3
        report.findings[0].resourceKind = "subscription"
        report.findings[0].test = "T.test()"
        report.findings[0].suppressedBy = "leakedSubscription:*"
        report.findings[0].eventStack = report.stacks[0].id
        report.findings[0].relatedStack = report.stacks[0].id
        report.findings[0].chain = [
            ReportChainStage(
                label: "Empty<Int, Never>", resourceKind: "subscription", allocationStack: report.stacks[0].id,
                fingerprint: "0123456789abcdef", innerOf: "FlatMap", isCause: true)
        ]
        report.findings[0].thread = ReportThread(id: 3, name: "worker", queue: "com.example.feed", isMainQueue: false)
        report.findings[0].otherThread = ReportThread(id: 4, name: "other", queue: "q", isMainQueue: true)
        let closure = ReportClosure(
            function: "closure #1 in A.a()", file: "/src/A.swift", line: 3, column: 4, category: .user,
            sourceText: ".sink { self.a = $0 }")
        let links = [ReportRetainLink(kind: .closure, name: "self", type: "A", closure: closure, strength: .strong)]
        let step = ReportRetainStep(type: "A", module: "A", category: .user, isSubscription: true, links: links)
        report.findings[0].retainPath = ReportRetainPath(
            verdict: .cycle, cycle: [step],
            holds: [ReportRetainHold(from: "Sink", links: links, type: "A", strength: .strong)],
            holder: "A.keeper", heldBy: [step], notes: ["a note"], objectsVisited: 3, milliseconds: 1.5)
        report.stacks[0].frames[0] = ReportFrame(
            address: "0x1", image: report.images[0].id, offset: "0x10", symbol: "$s1A", function: "A.a()", module: "A",
            category: .user, file: "/src/A.swift", line: 3, column: 4)
        report.images[0].buildID = "abcd"
        report.run.tests = [TestRecord(name: "T.test()", findings: 1, failed: true)]
        report.ledger = LedgerSummary(
            kinds: [KindTotals(kind: "subscription", registered: 2, peak: 2, live: 1)],
            liveAtEnd: [
                LiveSite(kind: "subscription", label: "feed", stack: report.stacks[0].id, count: 1, tests: ["T.test()"])
            ])
        report.sourceLines = SourceLineStatus(
            state: .partial, userFrames: 2, resolvedUserFrames: 1, resolver: "llvm-symbolizer", reason: "no debug info")
        return report
    }

    typealias Table = [ReportField]

    static func load() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: schemaURL)) as? [String: Any])
    }

    /// `schema` with its `$ref`s to `$defs` followed.
    static func resolve(_ schema: [String: Any], root: [String: Any]) -> [String: Any] {
        guard let reference = schema["$ref"] as? String, reference.hasPrefix("#/$defs/"),
            let target = (root["$defs"] as? [String: Any])?[String(reference.dropFirst(8))] as? [String: Any]
        else { return schema }
        return resolve(target, root: root)
    }

    /// Where the schema object at `schema` and the table disagree: members, presence, shapes;
    /// nested objects checked with their own tables.
    static func compare(
        _ table: Table, _ schema: [String: Any], root: [String: Any], path: String, problems: inout [String]
    ) {
        let object = resolve(schema, root: root)
        let properties = object["properties"] as? [String: Any] ?? [:]
        let keys = Set(table.map(\.key))
        let missing = keys.subtracting(properties.keys).sorted()
        let extra = Set(properties.keys).subtracting(keys).sorted()
        if !missing.isEmpty { problems.append("\(path): the table has \(missing), the schema does not") }
        if !extra.isEmpty { problems.append("\(path): the schema has \(extra), the table does not") }
        if object["additionalProperties"] as? Bool != false {
            problems.append("\(path): the schema allows other members")
        }
        let required = Set(object["required"] as? [String] ?? [])
        for field in table {
            if (field.presence != .optional) != required.contains(field.key) {
                problems.append(
                    "\(path).\(field.key): \(field.presence) in the table, \(required.contains(field.key) ? "" : "not ")required in the schema"
                )
            }
            guard let member = properties[field.key] as? [String: Any] else { continue }
            compare(field.value, member, root: root, path: "\(path).\(field.key)", problems: &problems)
        }
    }

    static func compare(
        _ value: FieldValue, _ member: [String: Any], root: [String: Any], path: String, problems: inout [String]
    ) {
        let reference = member["$ref"] as? String
        let schema = resolve(member, root: root)
        let type = schema["type"] as? String
        func expect(_ condition: Bool, _ what: String) {
            if !condition { problems.append("\(path): the table says \(what), the schema says \(member)") }
        }
        switch value {
        case .string: expect(type == "string" || schema["enum"] is [String], "a string")
        case .int, .int32, .uint64: expect(type == "integer" || schema["const"] is Int, "an integer")
        case .double: expect(type == "number", "a number")
        case .bool: expect(type == "boolean", "a boolean")
        case .date: expect(reference == "#/$defs/date", "a date")
        case .oneOf(let enumeration):
            expect(schema["enum"] as? [String] == enumeration.rawValues, "one of \(enumeration.rawValues)")
        case .strings:
            expect(type == "array" && (schema["items"] as? [String: Any])?["type"] as? String == "string", "strings")
        case .stringMap:
            expect(
                type == "object" && (schema["additionalProperties"] as? [String: Any])?["type"] as? String == "string",
                "a string map")
        case .object(let nested):
            expect(type == "object", "an object")
            compare(nested.fields, member, root: root, path: path, problems: &problems)
        case .array(let nested):
            guard type == "array", let items = schema["items"] as? [String: Any] else {
                return expect(false, "an array")
            }
            compare(nested.fields, items, root: root, path: "\(path)[]", problems: &problems)
        }
    }

    /// Where an encoded object and the table disagree: a member the table has and the object
    /// lacks (every field of the complete report is set), or one the table does not have.
    static func members(_ value: Any, _ table: Table, path: String, problems: inout [String]) {
        guard let object = value as? [String: Any] else { return problems.append("\(path) is not an object") }
        let keys = Set(table.map(\.key))
        let missing = keys.subtracting(object.keys).sorted()
        let extra = Set(object.keys).subtracting(keys).sorted()
        if !missing.isEmpty { problems.append("\(path): \(missing) not written") }
        if !extra.isEmpty { problems.append("\(path): \(extra) written, not in the table") }
        for field in table {
            let key = field.key
            switch field.value {
            case .object(let nested):
                if let member = object[key] {
                    members(member, nested.fields, path: "\(path).\(key)", problems: &problems)
                }
            case .array(let nested):
                let elements = object[key] as? [Any] ?? []
                if elements.isEmpty {
                    problems.append("\(path).\(key) is empty: the complete report should exercise it")
                }
                for (index, element) in elements.enumerated() {
                    members(element, nested.fields, path: "\(path).\(key)[\(index)]", problems: &problems)
                }
            default: break
            }
        }
    }

    @Test func theSchemaDeclaresExactlyTheTablesFields() throws {
        let root = try Self.load()
        var problems: [String] = []
        Self.compare(DiagnosticsReport.fields, root, root: root, path: "$", problems: &problems)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        let version = (root["properties"] as? [String: Any])?["schemaVersion"] as? [String: Any]
        #expect(version?["const"] as? Int == DiagnosticsReport.currentSchemaVersion)
    }

    @Test func theWriterAndTheCodableModelWriteExactlyTheTablesFields() throws {
        let report = Self.complete
        for (name, data) in [("writer", try report.encoded()), ("Codable", try FastJSONTests.codableEncoded(report))] {
            var problems: [String] = []
            Self.members(
                try JSONSerialization.jsonObject(with: data), DiagnosticsReport.fields, path: "$", problems: &problems)
            #expect(problems.isEmpty, "\(name): \(problems.joined(separator: "\n"))")
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

    @Test func theReaderRequiresTheTablesRequiredFields() throws {
        // Each required member of the top level and of a finding, removed in turn, is named.
        let object = try #require(try JSONSerialization.jsonObject(with: Self.complete.encoded()) as? [String: Any])
        for field in DiagnosticsReport.fields where field.presence == .required && field.key != "schemaVersion" {
            let key = field.key
            var broken = object
            broken.removeValue(forKey: key)
            let message = Self.message(try JSONSerialization.data(withJSONObject: broken))
            #expect(message.contains("missing field '\(key)'"), "\(message)")
        }
        for field in ReportFinding.fields where field.presence == .required {
            let key = field.key
            var broken = object
            var findings = try #require(broken["findings"] as? [[String: Any]])
            findings[0].removeValue(forKey: key)
            broken["findings"] = findings
            let message = Self.message(try JSONSerialization.data(withJSONObject: broken))
            #expect(message.contains("missing field '\(key)' in findings[0]"), "\(message)")
        }
    }

    static func message(_ data: Data) -> String {
        do {
            _ = try DiagnosticsReport.decode(data, source: "r")
            return "read without error"
        } catch {
            return error.description
        }
    }
}
