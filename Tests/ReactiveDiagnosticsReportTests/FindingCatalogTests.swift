import Foundation
import ReactiveDiagnosticsReport
import Testing

/// The finding catalog and Docs/Findings.md say the same: the same kinds in the same order, with
/// the same severity, group and summary, and each kind's section the same description, causes and
/// fix. Adding a kind to one without the other fails here.
@Suite("Finding catalog")
struct FindingCatalogTests {
    static let guide = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Docs/Findings.md")

    /// The guide's table: `| [`kind`](#anchor) | severity | group | summary |`.
    func tableRows() throws -> [(name: String, severity: String, group: String, summary: String)] {
        let text = try String(contentsOf: Self.guide, encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("| [`") else { return nil }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 4, let start = cells[0].firstIndex(of: "`") else { return nil }
            let rest = cells[0][cells[0].index(after: start)...]
            guard let end = rest.firstIndex(of: "`") else { return nil }
            return (String(rest[..<end]), cells[1], cells[2], cells[3])
        }
    }

    /// The paragraph after a kind's `**severity** · group …` line, and its causes and fix bullets.
    func section(_ name: String) throws -> (description: String, causes: String, fix: String)? {
        let text = try String(contentsOf: Self.guide, encoding: .utf8)
        guard let start = text.range(of: "\n## \(name)\n") else { return nil }
        let lines = text[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false).prefix {
            !$0.hasPrefix("## ")
        }
        guard let badge = lines.firstIndex(where: { $0.hasPrefix("**") }),
            let description = lines[(badge + 1)...].first(where: { !$0.isEmpty })
        else { return nil }
        let causes = lines.first { $0.hasPrefix("- **Usual causes:** ") }?.dropFirst("- **Usual causes:** ".count)
        let fix = lines.first { $0.hasPrefix("- **Fix:** ") }?.dropFirst("- **Fix:** ".count)
        return (String(description), String(causes ?? ""), String(fix ?? ""))
    }

    @Test func theGuideListsTheCatalogsKinds() throws {
        let rows = try tableRows()
        #expect(rows.map(\.name) == FindingCatalog.kinds.map(\.name))
        for (row, info) in zip(rows, FindingCatalog.kinds) {
            #expect(row.severity == info.defaultSeverity.rawValue, "\(info.name)")
            #expect(row.group == info.group.rawValue, "\(info.name)")
            #expect(row.summary == info.summary, "\(info.name)")
        }
    }

    @Test func eachKindsSectionSaysWhatItsHelpSays() throws {
        for info in FindingCatalog.kinds where info.definedBy == nil {
            let section = try #require(try section(info.name), "Docs/Findings.md has no section for \(info.name)")
            #expect(section.description == info.description, "\(info.name)")
            #expect(section.causes == info.causes, "\(info.name)")
            #expect(section.fix == info.fix, "\(info.name)")
        }
    }

    @Test func namesAreUniqueAndLookedUp() {
        let names = FindingCatalog.kinds.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(FindingCatalog.info(for: "leakedSubscription")?.isLifetime == true)
        #expect(FindingCatalog.info(for: "longAction")?.defaultSeverity == .warning)
        #expect(FindingCatalog.info(for: "noSuchKind") == nil && !FindingCatalog.isKnown("noSuchKind"))
        #expect(FindingCatalog.kinds.allSatisfy { $0.helpMarkdown.contains($0.fix) })
    }
}
