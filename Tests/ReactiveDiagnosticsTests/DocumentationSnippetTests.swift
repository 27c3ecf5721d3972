import Foundation
import ReactiveDiagnosticsTestSupport
import Testing

/// Every ` ```swift ` block of `README.md`, `Docs/*.md` and the DocC catalogs' pages (`*.docc/*.md`)
/// must be compiled code: it has to appear,
/// verbatim, in the `DocSnippets` target (or, for the RxSwift guide, in the RxSwift integration's
/// `RxDiagnosticsDocSnippets` target), which the build compiles; every ` ```swift manifest ` block
/// is a whole `Package.swift` that SwiftPM must load. See `Tests/DocSnippets/README.md`.
@Suite("Documentation snippets")
struct DocumentationSnippetTests {
    /// Info strings a Swift block may carry: `swift` (source, found in the snippet targets) and
    /// `swift manifest` (a whole `Package.swift`, loaded by SwiftPM).
    static let checkedInfo = "swift"
    static let manifestInfo = "swift manifest"

    /// Where the compiled copies live, relative to the package root.
    static let snippetFolders = [
        "Tests/DocSnippets",
        "Integrations/RxSwift/RxDiagnostics/Tests/RxDiagnosticsDocSnippets",
    ]

    @Test func theCatalogsPagesAreRead() {
        // One landing page per public module at least; a walk that finds none would pass vacuously.
        #expect(Self.catalogPages().count >= 8, "\(Self.catalogPages())")
    }

    @Test func everySwiftBlockOfTheGuidesIsCompiledCode() throws {
        let blocks = try Self.guideBlocks()
        let sources = try Self.snippetSources()
        // The guides have dozens of blocks; a parser that finds none would pass vacuously.
        try #require(blocks.filter { $0.info == Self.checkedInfo }.count >= 20, "found \(blocks.count) blocks")
        for block in blocks where block.info == Self.checkedInfo {
            let home = sources.first { $0.contains(block) }
            #expect(
                home != nil,
                """
                \(block.location): this Swift block is not in \(Self.snippetFolders.joined(separator: " or ")), \
                so nothing compiles it. Copy it there (inside code that compiles), or fix the copy that \
                drifted. Its first line: \(block.body.first ?? block.imports.first ?? "(empty)")
                """)
        }
    }

    @Test func aBlockThatDriftedFromItsCopyIsCaught() throws {
        let sources = try Self.snippetSources()
        let block = try #require(try Self.guideBlocks().first { $0.info == Self.checkedInfo && $0.body.count > 3 })
        try #require(sources.contains { $0.contains(block) })
        var drifted = block
        drifted.body[drifted.body.count / 2] += " // changed in the guide only"
        #expect(!sources.contains { $0.contains(drifted) })
        var moreImports = block
        moreImports.imports.insert("import NotImportedByTheCopy")
        #expect(!sources.contains { $0.contains(moreImports) })
    }

    @Test func everySnippetFileHoldsABlockOfTheGuides() throws {
        let blocks = try Self.guideBlocks().filter { $0.info == Self.checkedInfo }
        for source in try Self.snippetSources() where !source.isFixture {
            #expect(
                blocks.contains { !$0.body.isEmpty && source.contains($0) },
                "\(source.path) holds no block of the guides any more: delete it or update it")
        }
    }

    @Test func everySwiftBlockSaysWhetherItIsChecked() throws {
        for block in try Self.guideBlocks() where block.info.hasPrefix("swift") {
            #expect(
                block.info == Self.checkedInfo || block.info == Self.manifestInfo,
                "\(block.location): unknown info string '\(block.info)' (use 'swift' or 'swift manifest')")
        }
    }

    @Test func everyManifestOfTheGuidesLoads() async throws {
        let manifests = try Self.guideBlocks().filter { $0.info == Self.manifestInfo }
        try #require(manifests.count >= 5, "found \(manifests.count) manifests")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for manifest in manifests {
                group.addTask { try await Self.expectManifestLoads(manifest) }
            }
            try await group.waitForAll()
        }
    }

    /// Writes `block` as the `Package.swift` of an empty package and has SwiftPM load it
    /// (`dump-package` compiles and runs the manifest; it resolves nothing).
    static func expectManifestLoads(_ block: Block) async throws {
        #expect(
            block.body.first?.hasPrefix("// swift-tools-version:") == true,
            "\(block.location): a manifest block starts with its tools version")
        #expect(block.imports == ["import PackageDescription"], "\(block.location): imports \(block.imports)")
        let directory = try TemporaryDirectory("manifest")
        try block.text.write(
            to: directory.url.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        let result = try await ProcessRunner.run(
            "/usr/bin/env", arguments: ["swift", "package", "dump-package"], currentDirectory: directory.url,
            timeout: .seconds(300))
        #expect(
            result.status == 0 && !result.crashed,
            "\(block.location): SwiftPM does not load this manifest:\n\(result.standardError.suffix(2_000))")
    }

    // MARK: Reading the guides and the snippets

    /// A fenced code block of a guide, as lines without indentation, blank lines and `import`s.
    struct Block {
        var location: String
        var info: String
        var body: [String]
        var imports: Set<String>
        /// The block as written.
        var text: String
    }

    /// A Swift file of a snippet folder, normalised like a block.
    struct Source {
        var path: String
        var body: [String]
        var imports: Set<String>
        var isFixture: Bool

        /// Whether `block`'s lines appear here, in order and contiguous, with its imports.
        func contains(_ block: Block) -> Bool {
            guard block.imports.isSubset(of: imports) else { return false }
            guard !block.body.isEmpty else { return true }
            guard body.count >= block.body.count else { return false }
            return (0...(body.count - block.body.count)).contains { start in
                body[start..<(start + block.body.count)].elementsEqual(block.body)
            }
        }
    }

    static func guideBlocks() throws -> [Block] {
        let root = packageRoot()
        let docs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Docs").path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "Docs/\($0)" }
        var blocks: [Block] = []
        for path in ["README.md"] + docs + catalogPages() {
            let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
            var open: (info: String, line: Int, lines: [String])?
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                guard trimmed.hasPrefix("```") else {
                    open?.lines.append(String(line))
                    continue
                }
                if let block = open {
                    let (body, imports) = normalise(block.lines)
                    blocks.append(
                        Block(
                            location: "\(path):\(block.line)", info: block.info, body: body, imports: imports,
                            text: block.lines.joined(separator: "\n") + "\n"))
                    open = nil
                } else {
                    open = (String(trimmed.dropFirst(3)).trimmingCharacters(in: .whitespaces), index + 1, [])
                }
            }
        }
        return blocks
    }

    /// The pages of the DocC catalogs (`<Module>.docc/*.md`) under `Sources`, `Tools` and
    /// `Integrations`, relative to the package root; build folders are skipped.
    static func catalogPages() -> [String] {
        let root = packageRoot()
        var pages: [String] = []
        for folder in ["Sources", "Tools", "Integrations"] {
            guard let files = FileManager.default.enumerator(atPath: root.appendingPathComponent(folder).path) else {
                continue
            }
            for case let file as String in files {
                if (file as NSString).lastPathComponent.hasPrefix(".build") {
                    files.skipDescendants()
                } else if file.hasSuffix(".md") && file.contains(".docc/") {
                    pages.append("\(folder)/\(file)")
                }
            }
        }
        return pages.sorted()
    }

    static func snippetSources() throws -> [Source] {
        let root = packageRoot()
        var sources: [Source] = []
        for folder in snippetFolders {
            let url = root.appendingPathComponent(folder)
            guard let files = FileManager.default.enumerator(atPath: url.path) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: url.appendingPathComponent(file), encoding: .utf8)
                let (body, imports) = normalise(
                    text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
                sources.append(
                    Source(
                        path: "\(folder)/\(file)", body: body, imports: imports,
                        isFixture: file.contains("Fixtures")))
            }
        }
        return sources
    }

    /// Lines without surrounding whitespace, without blank lines; `import` lines set apart (with
    /// `@preconcurrency`, which only changes diagnostics, dropped).
    static func normalise(_ lines: [String]) -> (body: [String], imports: Set<String>) {
        var body: [String] = []
        var imports: Set<String> = []
        for line in lines {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            let unattributed = trimmed.hasPrefix("@preconcurrency ") ? String(trimmed.dropFirst(16)) : trimmed
            if unattributed.hasPrefix("import ") {
                imports.insert(unattributed)
            } else {
                body.append(trimmed)
            }
        }
        return (body, imports)
    }
}
