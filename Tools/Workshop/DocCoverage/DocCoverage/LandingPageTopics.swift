public import Foundation

/// The topic groups of a module's landing page, read from the documentation archive DocC built
/// (`<Module>.doccarchive/data/documentation/<module>.json`): the groups the catalog wrote
/// (`## Topics`) and the ones DocC had to add itself ("Structures", "Classes", "Extended
/// Modules"…) for top-level symbols nobody placed.
///
/// ```swift
/// let topics = try LandingPageTopics(archive: URL(fileURLWithPath: ".build/plugins/Swift-DocC/outputs/ReactiveDiagnostics.doccarchive"))
/// print(topics.automatic)   // [] when the catalog organises every top-level symbol
/// ```
public struct LandingPageTopics: Sendable {
    /// One topic group of the page.
    public struct Group: Decodable, Sendable, Equatable {
        /// The group's heading.
        public var title: String?
        /// The pages it lists.
        public var identifiers: [String]
        /// Whether DocC made it (for symbols no curated group lists).
        public var generated: Bool?

        /// Describes a group.
        public init(title: String?, identifiers: [String], generated: Bool?) {
            self.title = title
            self.identifiers = identifiers
            self.generated = generated
        }
    }

    /// The module, from the archive's name.
    public var module: String
    /// The page's groups, in order.
    public var groups: [Group]

    /// The groups DocC added itself.
    public var automatic: [Group] { groups.filter { $0.generated == true } }

    /// Reads the landing page of the archive's module.
    public init(archive: URL) throws {
        module = archive.deletingPathExtension().lastPathComponent
        let page = archive.appendingPathComponent("data/documentation/\(module.lowercased()).json")
        groups = try JSONDecoder().decode(Page.self, from: Data(contentsOf: page)).topicSections ?? []
    }

    /// Wraps groups already read (tests).
    public init(module: String, groups: [Group]) {
        self.module = module
        self.groups = groups
    }

    private struct Page: Decodable {
        var topicSections: [Group]?
    }
}
