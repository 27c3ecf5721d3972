public import Foundation
public import ReactiveDiagnosticsReport

/// Accepted findings: the gate fails only on findings whose fingerprint is not in here.
///
/// A baseline is versioned JSON, written with sorted keys and entries sorted by kind and
/// fingerprint, one entry per fingerprint with a readable one-line summary, so a reviewer
/// can read in a diff what was accepted. It holds no timestamps or machine paths: the same
/// findings give the same file everywhere.
///
/// ```swift
/// let baseline = Baseline(accepting: report)
/// try baseline.encoded().write(to: URL(fileURLWithPath: "ci/baseline.json"))
/// ```
///
/// ```json
/// {
///   "baselineVersion" : 1,
///   "entries" : [
///     {
///       "fingerprint" : "3fa2c9d1e0b4a7f8",
///       "kind" : "leakedSubscription",
///       "label" : "cart.refresh",
///       "summary" : "error leakedSubscription \"cart.refresh\" at CartViewModel.bind() (×2 in 2 tests): …",
///       "test" : "CartTests.testRefresh()"
///     }
///   ],
///   "generator" : "reactive-diag 0.1.0"
/// }
/// ```
public struct Baseline: Codable, Sendable, Equatable {
    /// The version this tool writes and reads.
    public static let currentVersion = 1

    /// The format version (``currentVersion``).
    public var baselineVersion: Int
    /// The tool that wrote it (optional when reading: baselines may be written by hand).
    public var generator: String?
    /// The accepted findings, sorted by kind, then fingerprint.
    public var entries: [Entry]

    /// One accepted fingerprint.
    public struct Entry: Codable, Sendable, Equatable {
        /// The fingerprint the gate compares.
        public var fingerprint: String
        /// The finding kind.
        public var kind: String
        /// The label, when the findings had one.
        public var label: String?
        /// The first test (by name) the findings came from.
        public var test: String?
        /// One line for people: severity, kind, label, where, how often, and the message.
        public var summary: String
    }

    /// A baseline accepting every unsuppressed finding of `report`.
    public init(accepting report: DiagnosticsReport) {
        var stacks = StackTable(index: ReportIndex(report))
        let groups = FindingGroup.group(report.findings.filter(\.isActive))
        entries = groups.map { group in
            let finding = group.representative
            let focus = finding.primaryStack.flatMap { stacks.view($0) }?.focusFrame
            var summary = "\(group.severity.rawValue) \(group.kind)"
            if let label = finding.label { summary += " \(Formatting.quoted(label))" }
            if let focus { summary += " at \(focus.name)" }
            summary += " (×\(group.count)"
            let tests = group.tests
            if !tests.isEmpty { summary += " in \(Formatting.count(tests.count, "test"))" }
            summary += "): \(finding.message)"
            return Entry(
                fingerprint: group.fingerprint, kind: group.kind, label: finding.label, test: tests.first,
                summary: summary.replacingOccurrences(of: "\n", with: " "))
        }.sorted { ($0.kind, $0.fingerprint, $0.label ?? "") < ($1.kind, $1.fingerprint, $1.label ?? "") }
        baselineVersion = Self.currentVersion
        generator = "reactive-diag \(ReactiveDiag.version)"
    }

    /// The accepted fingerprints.
    public var fingerprints: Set<String> {
        Set(entries.map(\.fingerprint))
    }

    /// Pretty-printed JSON with sorted keys and a final newline.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self) + Data("\n".utf8)
    }

    /// Reads a baseline.
    ///
    /// - Throws: ``ToolError`` (exit 2) naming `displayPath` and what is wrong.
    static func load(from url: URL, displayPath: String, maxBytes: Int) throws -> Baseline {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw ToolError("\(displayPath): cannot read the baseline: no such file or directory")
        }
        let data: Data
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            if (attributes[.type] as? FileAttributeType) == .typeDirectory {
                throw ToolError("\(displayPath): cannot read the baseline: it is a directory")
            }
            let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
            guard size <= maxBytes else {
                throw ToolError("\(displayPath): the file has \(size) bytes, more than the \(maxBytes)-byte limit")
            }
            data = try Data(contentsOf: url)
        } catch let error as ToolError {
            throw error
        } catch {
            throw ToolError("\(displayPath): cannot read the baseline: \(ErrorText.describe(error))")
        }
        guard !data.allSatisfy({ [0x20, 0x0A, 0x0D, 0x09].contains($0) }) else {
            throw ToolError("\(displayPath): the file is empty, not a baseline")
        }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw ToolError("\(displayPath): not valid JSON (truncated or corrupt?): \(ErrorText.describe(error))")
        }
        guard let version = (object as? [String: Any])?["baselineVersion"] as? Int else {
            throw ToolError("\(displayPath): not a reactive-diag baseline: it has no baselineVersion field")
        }
        guard version == currentVersion else {
            throw ToolError(
                "\(displayPath): baselineVersion \(version) is not supported "
                    + "(this tool knows version \(currentVersion))")
        }
        do {
            return try JSONDecoder().decode(Baseline.self, from: data)
        } catch {
            throw ToolError("\(displayPath): invalid baseline: \(ErrorText.describe(error))")
        }
    }
}
