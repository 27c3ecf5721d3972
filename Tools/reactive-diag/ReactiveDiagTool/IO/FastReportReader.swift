import Foundation
import ReactiveDiagnosticsReport

/// Reads reports several times faster than `DiagnosticsReport.load`, which parses every
/// document twice through Foundation (JSONSerialization for the version, then JSONDecoder):
/// about 9 s for a 100,000-finding report against the 2 s the benchmark allows.
///
/// It decodes the report's types straight from the bytes with ``JSONCursor`` and then asks
/// the report module's own `validationProblem()`. Whenever it meets anything it does not
/// expect (an unknown version, a missing field, a type mismatch, a duplicate key, a
/// validation problem, odd number syntax) it hands the bytes to
/// `DiagnosticsReport.decode(_:source:)`, so every error message, and every decision about
/// unusual but valid input, stays the report module's.
///
/// ```swift
/// let report = try FastReportReader.load(from: url, maxBytes: 1 << 30)
/// ```
package enum FastReportReader {
    /// Loads the report at `url`; the same result and errors as `DiagnosticsReport.load`.
    package static func load(from url: URL, maxBytes: Int) throws(ReportError) -> DiagnosticsReport {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
            (attributes[.type] as? FileAttributeType) == .typeRegular,
            let size = (attributes[.size] as? NSNumber)?.intValue, size <= maxBytes,
            let data = try? Data(contentsOf: url)
        else {
            return try DiagnosticsReport.load(from: url, maxBytes: maxBytes)
        }
        return try decode(data, source: url.path)
    }

    /// Decodes `data`; the same result and errors as `DiagnosticsReport.decode(_:source:)`.
    package static func decode(_ data: Data, source: String) throws(ReportError) -> DiagnosticsReport {
        if let report = parse(data), report.validationProblem() == nil {
            return report
        }
        return try DiagnosticsReport.decode(data, source: source)
    }

    /// The fast path alone, without validation: `nil` when it leaves the input to Foundation.
    package static func parse(_ data: Data) -> DiagnosticsReport? {
        try? data.withUnsafeBytes { bytes in
            var cursor = JSONCursor(bytes: bytes)
            let report = try cursor.report()
            guard cursor.isAtEnd() else { throw JSONCursor.Unsupported() }
            return report
        }
    }
}

/// Fails the fast path: a required field was missing.
func required<T>(_ value: T?) throws -> T {
    guard let value else { throw JSONCursor.Unsupported() }
    return value
}

extension JSONCursor {
    mutating func report() throws -> DiagnosticsReport {
        var version: Int?, tool: ToolInfo?, run: RunInfo?, findings: [ReportFinding]?, ledger: LedgerSummary?
        var schedulers: [SchedulerSummary]?, stacks: [ReportStack]?, images: [ReportImage]?, dropped: Int?
        try object { cursor, key in
            switch key {
            case "schemaVersion":
                version = try cursor.int()
                guard version == DiagnosticsReport.currentSchemaVersion else { throw Unsupported() }
            case "tool": tool = try cursor.toolInfo()
            case "run": run = try cursor.runInfo()
            case "findings": findings = try cursor.array { try $0.finding() }
            case "ledger": ledger = try cursor.ledger()
            case "schedulers": schedulers = try cursor.array { try $0.scheduler() }
            case "stacks": stacks = try cursor.array { try $0.stack() }
            case "images": images = try cursor.array { try $0.image() }
            case "droppedFindings": dropped = try cursor.int()
            default: try cursor.skipValue()
            }
        }
        return DiagnosticsReport(
            schemaVersion: try required(version), tool: try required(tool), run: try required(run),
            findings: try required(findings), ledger: try required(ledger), schedulers: try required(schedulers),
            stacks: try required(stacks), images: try required(images), droppedFindings: try required(dropped))
    }

    mutating func toolInfo() throws -> ToolInfo {
        var name: String?, version: String?
        try object { cursor, key in
            switch key {
            case "name": name = try cursor.string()
            case "version": version = try cursor.string()
            default: try cursor.skipValue()
            }
        }
        return ToolInfo(name: try required(name), version: try required(version))
    }

    mutating func date() throws -> Date {
        try required(ReportDates.parse(try string()))
    }

    mutating func runInfo() throws -> RunInfo {
        var name: String?, pid: Int32?, arguments: [String]?, executable: String?, directory: String?, host: String?
        var platform: String?, toolchain: String?, start: Date?, end: Date?, completeness: RunInfo.Completeness?
        var tests: [TestRecord]?, processCount: Int?
        try object { cursor, key in
            switch key {
            case "processName": name = try cursor.string()
            case "processID": pid = try cursor.int32()
            case "arguments": arguments = try cursor.array { try $0.string() }
            case "executable": executable = try cursor.string()
            case "workingDirectory": directory = try cursor.string()
            case "hostName": host = try cursor.string()
            case "platform": platform = try cursor.string()
            case "toolchain": toolchain = try cursor.string()
            case "startTime": start = try cursor.date()
            case "endTime": end = try cursor.date()
            case "completeness": completeness = try required(RunInfo.Completeness(rawValue: try cursor.string()))
            case "tests": tests = try cursor.array { try $0.testRecord() }
            case "processCount": processCount = try cursor.int()
            default: try cursor.skipValue()
            }
        }
        return RunInfo(
            processName: try required(name), processID: try required(pid), arguments: try required(arguments),
            executable: try required(executable), workingDirectory: try required(directory), hostName: try required(host),
            platform: try required(platform), toolchain: try required(toolchain), startTime: try required(start),
            endTime: try required(end), completeness: try required(completeness), tests: try required(tests),
            processCount: try required(processCount))
    }

    mutating func testRecord() throws -> TestRecord {
        var name: String?, findings: Int?, failed: Bool?
        try object { cursor, key in
            switch key {
            case "name": name = try cursor.string()
            case "findings": findings = try cursor.int()
            case "failed": failed = try cursor.bool()
            default: try cursor.skipValue()
            }
        }
        return TestRecord(name: try required(name), findings: try required(findings), failed: try required(failed))
    }
}
