public import Foundation

/// Which public symbols of a module have a documentation comment, read from the module's symbol
/// graphs.
///
/// A symbol counts when it is `public` or `open` and written in the module's sources. What the
/// module's authors did not write is left out by the symbol graph's own markers, never by name:
/// members a protocol extension gives a type (`::SYNTHESIZED::` in the identifier, such as
/// `Equatable`'s `!=`), members the compiler wrote (no source `location`, such as a `Codable`
/// type's `init(from:)` or an enum's `allCases`), and extension blocks (`swift.extension`, which
/// DocC never shows). A symbol written in the sources must have its own `///` comment: the comment
/// of the protocol requirement it implements, which the symbol graph copies onto it (a hand-written
/// `description` gets "A textual representation of this instance."), says nothing of this type's
/// behaviour, so it does not count. A top-level type's comment must also show it in use, in a
/// ```` ```swift ```` block.
///
/// ```swift
/// let graphs = try SymbolGraph.loadAll(in: URL(fileURLWithPath: ".build/x86_64-unknown-linux-gnu/extracted-symbols/x/ReactiveDiagnostics"))
/// let coverage = DocumentationCoverage(module: "ReactiveDiagnostics", graphs: graphs)
/// for symbol in coverage.undocumented { print(symbol.path, symbol.file ?? "?") }
/// ```
public struct DocumentationCoverage: Sendable {
    /// How a public symbol is documented.
    public enum Status: String, Sendable, Equatable {
        /// By its own `///` comment.
        case documented
        /// Only by the comment of the protocol requirement it implements (not enough).
        case inherited
        /// Not at all.
        case undocumented
        /// A top-level type whose own comment has no ```` ```swift ```` example.
        case withoutExample
    }

    /// The kinds of top-level declarations that need an example.
    static let typeKinds: Set<String> = ["swift.struct", "swift.class", "swift.enum", "swift.protocol", "swift.actor"]

    /// One public symbol written in the module's sources.
    public struct Entry: Sendable, Equatable {
        /// The symbol's path from the module, such as `DiagnosticsEngine.init(configuration:)`.
        public var path: String
        /// The symbol's kind, such as `swift.method`.
        public var kind: String
        /// The declaration's file path (from the symbol graph's `file://` URL).
        public var file: String?
        /// The declaration's one-based line.
        public var line: Int?
        /// How it is documented.
        public var status: Status
    }

    /// The module the graphs describe.
    public var module: String
    /// Every public symbol written in the module's sources, sorted by file and line.
    public var entries: [Entry]

    /// The symbols without a documentation comment of their own, and the top-level types
    /// without an example.
    public var undocumented: [Entry] { entries.filter { $0.status != .documented } }

    /// Classifies every symbol of `graphs` (the module's own graph and its extension graphs).
    public init(module: String, graphs: [SymbolGraph]) {
        self.module = module
        let symbols = graphs.filter { $0.module.name == module }.flatMap(\.symbols)
        let owners = Self.commentOwners(symbols)
        var seen: Set<String> = []
        var entries: [Entry] = []
        for symbol in symbols where seen.insert(symbol.identifier.precise).inserted {
            guard let location = symbol.location, Self.isWrittenPublicAPI(symbol) else { continue }
            var status = Self.status(of: symbol, at: location, in: module)
            if status != .undocumented, status != .inherited, let key = Self.commentKey(symbol),
                owners[key] != location.position.line
            {
                status = .inherited  // a copy of a comment that sits above another declaration
            }
            entries.append(
                Entry(
                    path: symbol.pathComponents.joined(separator: "."),
                    kind: symbol.kind.identifier,
                    file: URL(string: location.uri)?.path ?? location.uri,
                    line: location.position.line + 1,
                    status: status))
        }
        self.entries = entries.sorted {
            ($0.file ?? "", $0.line ?? 0, $0.path) < ($1.file ?? "", $1.line ?? 0, $1.path)
        }
    }

    /// Where a comment is: its file and its last line.
    struct CommentKey: Hashable {
        var uri: String
        var lastLine: Int
    }

    static func commentKey(_ symbol: SymbolGraph.Symbol) -> CommentKey? {
        guard let comment = symbol.docComment, let last = comment.lines.last?.range?.start.line else { return nil }
        return CommentKey(uri: comment.uri ?? symbol.location?.uri ?? "", lastLine: last)
    }

    /// The declaration each comment belongs to: of the symbols carrying the same comment (the
    /// extractor copies a requirement's comment onto the default implementations and
    /// conformances that have none), the one declared first after it in its file.
    static func commentOwners(_ symbols: [SymbolGraph.Symbol]) -> [CommentKey: Int] {
        var owners: [CommentKey: Int] = [:]
        for symbol in symbols {
            guard let key = commentKey(symbol), let location = symbol.location, location.uri == key.uri,
                location.position.line > key.lastLine
            else { continue }
            owners[key] = min(owners[key] ?? .max, location.position.line)
        }
        return owners
    }

    /// Whether `symbol` is public API its module's authors wrote (not a member a protocol
    /// extension or the compiler supplied, not an extension block).
    static func isWrittenPublicAPI(_ symbol: SymbolGraph.Symbol) -> Bool {
        ["public", "open"].contains(symbol.accessLevel)
            && symbol.kind.identifier != "swift.extension"
            && !symbol.identifier.precise.contains("::SYNTHESIZED::")
            && symbol.location != nil
    }

    /// Own comment: written by this module, in the declaration's file, ending just above the
    /// declaration (attributes may sit between). A comment from elsewhere, even from the same
    /// file (a protocol extension's default implementation), is the implemented requirement's,
    /// copied by the extractor.
    static func status(
        of symbol: SymbolGraph.Symbol, at location: SymbolGraph.Symbol.Location, in module: String
    ) -> Status {
        guard let comment = symbol.docComment,
            comment.lines.contains(where: { !$0.text.trimmingCharacters(in: .whitespaces).isEmpty })
        else { return .undocumented }
        let ownModule = comment.module == nil || comment.module == module
        let ownFile = comment.uri == nil || comment.uri == location.uri
        var endsAboveDeclaration = true
        if let last = comment.lines.last?.range?.start.line {
            endsAboveDeclaration =
                last < location.position.line
                && location.position.line - last <= maximumAttributeLines + 1
        }
        guard ownModule && ownFile && endsAboveDeclaration else { return .inherited }
        if symbol.pathComponents.count == 1 && typeKinds.contains(symbol.kind.identifier)
            && !comment.lines.contains(where: { $0.text.trimmingCharacters(in: .whitespaces).hasPrefix("```swift") })
        {
            return .withoutExample
        }
        return .documented
    }

    /// How many lines of attributes (`@inlinable`, `@available(…)`) may separate a comment from
    /// its declaration.
    static let maximumAttributeLines = 6
}

extension SymbolGraph {
    /// Reads every `.symbols.json` file directly in `directory`.
    public static func loadAll(in directory: URL) throws -> [SymbolGraph] {
        try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.lastPathComponent.hasSuffix(".symbols.json") }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
            .map(load(from:))
    }
}
