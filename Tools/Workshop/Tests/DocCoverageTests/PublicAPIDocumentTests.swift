import DocCoverage
import Foundation
import Testing

/// `doc-coverage public-api` on a small page and small symbol graphs (the real page and graphs are
/// checked by `Tools/docs.sh`).
@Suite("Public API page")
struct PublicAPIDocumentTests {
    static let page = """
        # What is API

        ## API

        | product | module | what it offers |
        |---|---|---|
        | `Module` | the module | `Engine` (with `start()`), `withEngine(_:)`, `AsyncStream.engine`, `Module.install()`, `.diagnosed()` |
        | `Other` (nested package) | another | `Gone` |

        ## Not API

        - `Internal`, `Ledger`: not checked here.
        """

    @Test func everyTopLevelDeclarationIsNamedAndEveryNameExists() throws {
        let graph = try DocumentationCoverageTests.graph(
            module: "Module",
            [
                DocumentationCoverageTests.symbol("Engine", kind: "swift.class", comment: nil),
                DocumentationCoverageTests.symbol("Engine.start()", kind: "swift.method", comment: nil),
                DocumentationCoverageTests.symbol("withEngine(_:)", kind: "swift.func", comment: nil),
                DocumentationCoverageTests.symbol("AsyncStream.engine", kind: "swift.property", comment: nil),
                DocumentationCoverageTests.symbol("_Hidden", kind: "swift.struct", comment: nil),
                DocumentationCoverageTests.symbol("Helper", kind: "swift.struct", comment: nil, access: "package"),
            ])
        #expect(PublicAPIDocument(markdown: Self.page).problems(module: "Module", graphs: [graph]).isEmpty)
    }

    @Test func anUnlistedDeclarationAndAStaleNameAreProblems() throws {
        var spi = DocumentationCoverageTests.symbol("Monitor", kind: "swift.class", comment: nil)
        spi["spi"] = true
        let graph = try DocumentationCoverageTests.graph(
            module: "Module",
            [
                DocumentationCoverageTests.symbol("Probe", kind: "swift.class", comment: nil),
                DocumentationCoverageTests.symbol("withEngine(_:)", kind: "swift.func", comment: nil),
                spi,
            ])
        let problems = PublicAPIDocument(markdown: Self.page).problems(module: "Module", graphs: [graph])
        #expect(
            problems == [
                .unlisted(module: "Module", name: "Probe"),
                .stale(module: "Module", name: "Engine"),
                .stale(module: "Module", name: "AsyncStream"),
            ])
    }

    @Test func aProductWithoutRowIsAProblem() throws {
        let graph = try DocumentationCoverageTests.graph(
            module: "Third", [DocumentationCoverageTests.symbol("Thing", kind: "swift.struct", comment: nil)])
        #expect(
            PublicAPIDocument(markdown: Self.page).problems(module: "Third", graphs: [graph]) == [
                .missingRow(module: "Third")
            ])
        #expect(PublicAPIDocument(markdown: Self.page).rows["Other"] == ["Gone"])
    }
}
