import Foundation

/// `Docs/PublicAPI.md` checked against the symbol graphs, so that the page cannot drift from
/// what a module declares.
///
/// The page's `## API` section has a table with one row per product: its first column names the
/// product (`` `CombineDiagnostics` ``), the others what it offers, in backticks. For every module
/// whose graphs are checked, each public top-level type, function, variable or type alias that
/// is not SPI and not underscored must be named in its row (as an identifier inside backticks,
/// `` `DiagnosticScheduler` `` or `` `AsyncStream.makeDiagnosedStream` ``), and every name of the
/// row that starts with an upper-case letter must still exist: a public top-level declaration
/// of the module, a type the module extends publicly, or the module itself.
///
/// ```swift
/// let page = try String(contentsOfFile: "Docs/PublicAPI.md", encoding: .utf8)
/// let graphs = try SymbolGraph.loadAll(in: URL(fileURLWithPath: "symbolgraph/CombineDiagnostics"))
/// for problem in PublicAPIDocument(markdown: page).problems(module: "CombineDiagnostics", graphs: graphs) {
///     print(problem)
/// }
/// ```
public struct PublicAPIDocument: Sendable {
    /// What the page says of each product: the identifiers written in backticks in its row.
    public var rows: [String: [String]]

    /// A difference between the page and a module's symbol graphs.
    public enum Problem: Sendable, Equatable, CustomStringConvertible {
        /// The product has no row in the `## API` table.
        case missingRow(module: String)
        /// A public top-level declaration the module's row does not name.
        case unlisted(module: String, name: String)
        /// A name of the module's row that is no public declaration (any more).
        case stale(module: String, name: String)

        /// One line for a person, naming the page and what to change.
        public var description: String {
            switch self {
            case .missingRow(let module):
                "Docs/PublicAPI.md has no row for \(module) in its '## API' table"
            case .unlisted(let module, let name):
                "\(module) declares public '\(name)', which its row of Docs/PublicAPI.md does not name (in backticks); "
                    + "list it, or make it internal, package or @_spi(Integration)"
            case .stale(let module, let name):
                "Docs/PublicAPI.md names '\(name)' in the row of \(module), which declares no public '\(name)' "
                    + "(nor extends one)"
            }
        }
    }

    /// Reads the rows of the `## API` section's table of `markdown`.
    public init(markdown: String) {
        var rows: [String: [String]] = [:]
        var inAPISection = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") {
                inAPISection = line.trimmingCharacters(in: .whitespaces) == "## API"
                continue
            }
            guard inAPISection, line.hasPrefix("|") else { continue }
            let cells = line.split(separator: "|", omittingEmptySubsequences: true)
            guard let first = cells.first, let product = Self.codeSpans(in: first).first,
                let name = Self.leadingIdentifier(product)
            else { continue }
            rows[name, default: []] += cells.dropFirst().flatMap { Self.codeSpans(in: $0) }
        }
        self.rows = rows
    }

    /// What differs between the page and `module`'s graphs (its own graph and its extension
    /// graphs, as `swift-symbolgraph-extract` writes them, without SPI symbols or with them
    /// marked).
    public func problems(module: String, graphs: [SymbolGraph]) -> [Problem] {
        guard let spans = rows[module] else { return [.missingRow(module: module)] }
        let api = Self.topLevelAPI(module: module, graphs: graphs)
        let named = Set(spans.flatMap(Self.identifiers(in:)))
        var problems = api.declared.sorted().filter { !named.contains($0) }.map {
            Problem.unlisted(module: module, name: $0)
        }
        var seen: Set<String> = []
        for span in spans {
            guard let name = Self.leadingIdentifier(span), name.first?.isUppercase == true,
                seen.insert(name).inserted, !api.known.contains(name)
            else { continue }
            problems.append(.stale(module: module, name: name))
        }
        return problems
    }

    /// The public, non-SPI, non-underscored top-level declarations of `module` (`declared`), and
    /// every name a row may start with (`known`): those, the types the module extends publicly,
    /// and the module's own name.
    public static func topLevelAPI(module: String, graphs: [SymbolGraph]) -> (declared: Set<String>, known: Set<String>)
    {
        var declared: Set<String> = []
        var known: Set<String> = [module]
        for symbol in graphs.filter({ $0.module.name == module }).flatMap(\.symbols) {
            guard ["public", "open"].contains(symbol.accessLevel), symbol.spi != true,
                let first = symbol.pathComponents.first, !first.hasPrefix("_")
            else { continue }
            known.insert(Self.baseName(first))
            if symbol.pathComponents.count == 1, symbol.kind.identifier != "swift.extension" {
                declared.insert(Self.baseName(first))
            }
        }
        return (declared, known)
    }

    /// `withDiagnosedEffect(_:body:)` → `withDiagnosedEffect`.
    static func baseName(_ component: String) -> String {
        String(component.prefix { $0 != "(" })
    }

    /// The texts between single backticks.
    static func codeSpans(in text: Substring) -> [String] {
        let parts = text.split(separator: "`", omittingEmptySubsequences: false)
        return stride(from: 1, to: parts.count - 1, by: 2).map { String(parts[$0]) }
    }

    /// The identifier a span starts with (`ReactiveDiag` of `ReactiveDiag.run(arguments:…)`);
    /// `nil` for `.diagnosed()` and other spans that do not start with one.
    static func leadingIdentifier(_ span: String) -> String? {
        let name = span.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
        return name.first.map { $0.isLetter || $0 == "_" } == true ? String(name) : nil
    }

    /// Every identifier in a span (`AsyncStream`, `makeDiagnosedStream` of
    /// `AsyncStream.makeDiagnosedStream`).
    static func identifiers(in span: String) -> [String] {
        span.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init)
    }
}
