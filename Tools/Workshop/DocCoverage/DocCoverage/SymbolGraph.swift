public import Foundation

/// The part of a Swift symbol graph (`<Module>.symbols.json`, `<Module>@<Extended>.symbols.json`,
/// as `swift-symbolgraph-extract` writes them for `swift package generate-documentation`) that
/// says whether a symbol is documented.
///
/// ```swift
/// let graph = try SymbolGraph.load(from: URL(fileURLWithPath: "ReactiveDiagnostics.symbols.json"))
/// print(graph.module.name, graph.symbols.count)
/// ```
public struct SymbolGraph: Decodable, Sendable {
    /// The module whose symbols the graph holds (for an extension graph, the extending module).
    public var module: Module
    /// Every symbol the extractor kept (at or above its minimum access level).
    public var symbols: [Symbol]

    /// The graph's `module` object.
    public struct Module: Decodable, Sendable {
        /// The module's name, as `import` spells it.
        public var name: String
    }

    /// One declaration (or one member a conformance gave a type).
    public struct Symbol: Decodable, Sendable {
        /// `kind.identifier`: `swift.struct`, `swift.method`, `swift.extension`…
        public var kind: Kind
        /// `identifier.precise`: the USR; a synthesized member's reads `<member USR>::SYNTHESIZED::<type USR>`.
        public var identifier: Identifier
        /// The names from the module down to the symbol (`["DiagnosticsEngine", "init(configuration:)"]`).
        public var pathComponents: [String]
        /// `public`, `open`, `package`, `internal`…
        public var accessLevel: String
        /// `true` for a declaration behind `@_spi(…)` (present only when the extractor was asked
        /// for SPI symbols).
        public var spi: Bool?
        /// The documentation comment, the symbol's own or one inherited from the requirement it
        /// implements (then `module` names the requirement's module and `uri` its file).
        public var docComment: DocComment?
        /// Where the declaration is written; absent for what the compiler wrote (synthesized
        /// `Codable`, `Equatable`, `RawRepresentable`, `CaseIterable` members).
        public var location: Location?

        /// `kind` of a symbol.
        public struct Kind: Decodable, Sendable {
            /// The kind's identifier, such as `swift.property`.
            public var identifier: String
        }

        /// `identifier` of a symbol.
        public struct Identifier: Decodable, Sendable {
            /// The symbol's unique identifier (USR).
            public var precise: String
        }

        /// `docComment` of a symbol.
        public struct DocComment: Decodable, Sendable {
            /// The module the comment was written in, when the extractor knows it.
            public var module: String?
            /// The file the comment was written in, when the extractor knows it.
            public var uri: String?
            /// The comment's lines.
            public var lines: [Line]

            /// One line of a comment.
            public struct Line: Decodable, Sendable {
                /// The text after `///`.
                public var text: String
                /// Where the text is (zero-based lines), when the extractor knows it.
                public var range: Range?

                /// `range` of a comment line.
                public struct Range: Decodable, Sendable {
                    /// Where the text starts.
                    public var start: Position
                }

                /// A zero-based position in a file.
                public struct Position: Decodable, Sendable {
                    /// The zero-based line.
                    public var line: Int
                }
            }
        }

        /// `location` of a symbol.
        public struct Location: Decodable, Sendable {
            /// The declaration's file, as a `file://` URL.
            public var uri: String
            /// The declaration's position (zero-based line and character).
            public var position: Position

            /// `location.position` of a symbol.
            public struct Position: Decodable, Sendable {
                /// The zero-based line.
                public var line: Int
            }
        }
    }

    /// Reads one `.symbols.json` file.
    public static func load(from url: URL) throws -> SymbolGraph {
        try JSONDecoder().decode(SymbolGraph.self, from: Data(contentsOf: url))
    }
}
