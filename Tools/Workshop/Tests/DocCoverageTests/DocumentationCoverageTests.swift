import DocCoverage
import Foundation
import Testing

/// The rules of `doc-coverage` on small symbol graphs written the way `swift-symbolgraph-extract`
/// writes them (the real graphs are checked by `Tools/docs.sh`).
@Suite("Documentation coverage")
struct DocumentationCoverageTests {
    @Test func aPublicSymbolWithoutCommentIsUndocumented() throws {
        let coverage = try Self.coverage([
            Self.symbol("Engine", kind: "swift.class", comment: Self.engineComment),
            Self.symbol("Engine.start()", kind: "swift.method", comment: nil),
        ])
        #expect(coverage.entries.count == 2)
        #expect(coverage.undocumented.map(\.path) == ["Engine.start()"])
        #expect(coverage.undocumented.first?.file == "/src/Engine.swift")
        #expect(coverage.undocumented.first?.line == 11)
    }

    @Test func aTopLevelTypeShowsAnExample() throws {
        let coverage = try Self.coverage([
            Self.symbol("Engine", kind: "swift.class", comment: "The engine."),
            Self.symbol("Ledger", kind: "swift.struct", comment: "The ledger.\n```swift\nlet ledger = Ledger()\n```"),
            Self.symbol("Ledger.Entry", kind: "swift.struct", comment: "An entry (a nested type: no example needed)."),
        ])
        #expect(coverage.undocumented.map(\.path) == ["Engine"])
        #expect(coverage.undocumented.first?.status == .withoutExample)
    }

    @Test func aBlankCommentIsNoDocumentation() throws {
        let coverage = try Self.coverage([Self.symbol("Engine", kind: "swift.class", comment: "  ")])
        #expect(coverage.undocumented.map(\.path) == ["Engine"])
    }

    @Test func whatTheAuthorsDidNotWriteIsLeftOut() throws {
        let coverage = try Self.coverage([
            Self.symbol("Engine", kind: "swift.struct", comment: Self.engineComment),
            // Equatable's `!=`, given to the type by a protocol extension of the standard library.
            Self.symbol(
                "Engine.!=(_:_:)", kind: "swift.func.op", comment: nil, usrSuffix: "::SYNTHESIZED::s:6Module6EngineV"),
            // A synthesized `init(from:)`: the compiler wrote it, so it has no location.
            Self.symbol("Engine.init(from:)", kind: "swift.init", comment: nil, hasLocation: false),
            // An extension block: DocC shows the extended type's page, never the block's comment.
            Self.symbol("Array", kind: "swift.extension", comment: nil),
            // Not public API.
            Self.symbol("Engine.ledger", kind: "swift.property", comment: nil, access: "internal"),
        ])
        #expect(coverage.entries.map(\.path) == ["Engine"])
        #expect(coverage.undocumented.isEmpty)
    }

    @Test func aRequirementsCommentIsNotTheImplementationsOwn() throws {
        let coverage = try Self.coverage([
            Self.symbol("Engine", kind: "swift.struct", comment: Self.engineComment),
            Self.symbol(
                "Engine.description", kind: "swift.property", comment: "A textual representation of this instance.",
                commentModule: "Swift", commentFile: nil),
        ])
        #expect(coverage.entries.map(\.status) == [.documented, .inherited])
        #expect(coverage.undocumented.map(\.path) == ["Engine.description"])
    }

    @Test func aDefaultImplementationDoesNotBorrowItsRequirementsComment() throws {
        // The requirement's comment, on line 2 of the same file, copied onto the default
        // implementation declared on line 11.
        let coverage = try Self.coverage([
            Self.symbol(
                "Observer.didUpdate(_:)", kind: "swift.method", comment: "A finding was updated.", commentLine: 1),
            Self.symbol(
                "Observer.didRecord(_:)", kind: "swift.method", comment: "A finding was recorded.", commentLine: 9),
        ])
        #expect(coverage.undocumented.map(\.path) == ["Observer.didUpdate(_:)"])
        #expect(coverage.undocumented.first?.status == .inherited)
    }

    @Test func aCommentBelongsToTheFirstDeclarationAfterIt() throws {
        // The requirement (line 11) and, close below it, its default implementation (line 13),
        // which the extractor gave the requirement's comment (line 10).
        var requirement = Self.symbol("Observer.didUpdate(_:)", kind: "swift.method", comment: "A finding was updated.")
        requirement["identifier"] = ["precise": "requirement", "interfaceLanguage": "swift"]
        var implementation = Self.symbol(
            "Observer.didUpdate(_:)", kind: "swift.method", comment: "A finding was updated.")
        implementation["location"] = ["uri": "file:///src/Engine.swift", "position": ["line": 12, "character": 4]]
        let coverage = try Self.coverage([requirement, implementation])
        #expect(coverage.entries.map(\.line) == [11, 13])
        #expect(coverage.entries.map(\.status) == [.documented, .inherited])
    }

    @Test func anotherModulesGraphIsNotThisModules() throws {
        let graph = try Self.graph(module: "Other", [Self.symbol("Thing", kind: "swift.struct", comment: nil)])
        #expect(DocumentationCoverage(module: "Module", graphs: [graph]).entries.isEmpty)
    }

    // MARK: Writing symbol graphs

    /// A top-level type's comment with its example.
    static let engineComment = "The engine.\n```swift\nlet engine = Engine()\n```"

    static func coverage(_ symbols: [[String: Any]]) throws -> DocumentationCoverage {
        DocumentationCoverage(module: "Module", graphs: [try graph(module: "Module", symbols)])
    }

    static func graph(module: String, _ symbols: [[String: Any]]) throws -> SymbolGraph {
        let object: [String: Any] = [
            "metadata": ["formatVersion": ["major": 0, "minor": 6, "patch": 0]],
            "module": ["name": module, "platform": [:] as [String: Any]],
            "symbols": symbols,
            "relationships": [] as [Any],
        ]
        return try JSONDecoder().decode(SymbolGraph.self, from: JSONSerialization.data(withJSONObject: object))
    }

    static func symbol(
        _ path: String, kind: String, comment: String?, access: String = "public", usrSuffix: String = "",
        hasLocation: Bool = true, commentModule: String? = "Module", commentFile: String? = "file:///src/Engine.swift",
        commentLine: Int = 9
    ) -> [String: Any] {
        var symbol: [String: Any] = [
            "kind": ["identifier": kind, "displayName": kind],
            "identifier": ["precise": "s:6Module\(path.count)\(path)" + usrSuffix, "interfaceLanguage": "swift"],
            "pathComponents": path.split(separator: ".").map(String.init),
            "names": ["title": path],
            "accessLevel": access,
        ]
        if hasLocation {
            symbol["location"] = ["uri": "file:///src/Engine.swift", "position": ["line": 10, "character": 4]]
        }
        if let comment {
            // The comment's last line sits on `commentLine` (zero-based).
            let texts = comment.split(separator: "\n", omittingEmptySubsequences: false)
            let lines = texts.enumerated().map { index, text -> [String: Any] in
                [
                    "text": String(text),
                    "range": ["start": ["line": commentLine - (texts.count - 1) + index, "character": 8]],
                ]
            }
            var docComment: [String: Any] = ["lines": lines]
            if let commentModule { docComment["module"] = commentModule }
            if let commentFile { docComment["uri"] = commentFile }
            symbol["docComment"] = docComment
        }
        return symbol
    }
}

/// The landing-page check of `doc-coverage topics`.
@Suite("Landing page topics")
struct LandingPageTopicsTests {
    @Test func groupsDocCAddedItselfAreAutomatic() {
        let topics = LandingPageTopics(
            module: "Module",
            groups: [
                .init(title: "Essentials", identifiers: ["doc://Module/documentation/Module/Engine"], generated: nil),
                .init(title: "Structures", identifiers: ["doc://Module/documentation/Module/Ledger"], generated: true),
            ])
        #expect(topics.automatic.map(\.title) == ["Structures"])
    }

    @Test func readsTheLandingPageOfAnArchive() throws {
        let archive = FileManager.default.temporaryDirectory
            .appendingPathComponent("doc-coverage-\(UUID().uuidString)/Module.doccarchive")
        let pages = archive.appendingPathComponent("data/documentation")
        try FileManager.default.createDirectory(at: pages, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: archive.deletingLastPathComponent()) }
        let page = """
            {"topicSections": [
              {"title": "Essentials", "identifiers": ["doc://Module/documentation/Module/Engine"], "anchor": "Essentials"},
              {"title": "Extended Modules", "identifiers": ["doc://Module/documentation/Module/Swift"], "generated": true}
            ], "kind": "symbol"}
            """
        try Data(page.utf8).write(to: pages.appendingPathComponent("module.json"))
        let topics = try LandingPageTopics(archive: archive)
        #expect(topics.module == "Module")
        #expect(topics.groups.count == 2)
        #expect(topics.automatic.map(\.title) == ["Extended Modules"])
    }
}
