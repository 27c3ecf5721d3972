/// The subset of SARIF 2.1.0 the gate writes, as Codable values
/// (https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html).
struct SARIFLog: Codable, Equatable {
    /// `$schema`.
    var schema = "https://json.schemastore.org/sarif-2.1.0.json"
    /// Always `2.1.0`.
    var version = "2.1.0"
    /// One run.
    var runs: [Run]

    enum CodingKeys: String, CodingKey {
        case schema = "$schema"
        case version, runs
    }

    struct Run: Codable, Equatable {
        var tool: Tool
        var originalUriBaseIds: [String: ArtifactLocation]?
        var results: [Result]
        var columnKind = "unicodeCodePoints"
    }

    struct Tool: Codable, Equatable {
        var driver: Driver
    }

    struct Driver: Codable, Equatable {
        var name: String
        var version: String
        var semanticVersion: String
        var informationUri: String
        var rules: [Rule]
    }

    struct Rule: Codable, Equatable {
        var id: String
        var name: String
        var shortDescription: Message
        var fullDescription: Message
        var help: Message
        var helpUri: String?
        var defaultConfiguration: Configuration
        var properties: RuleProperties
    }

    struct RuleProperties: Codable, Equatable {
        var tags: [String]
    }

    struct Configuration: Codable, Equatable {
        var level: String
    }

    struct Message: Codable, Equatable {
        var text: String
        var markdown: String?
    }

    struct Result: Codable, Equatable {
        var ruleId: String
        var ruleIndex: Int
        var level: String
        var message: Message
        var locations: [Location]
        var relatedLocations: [Location]?
        var partialFingerprints: [String: String]
        var stacks: [Stack]
        /// Why the resource is alive: its retain path, step by step, the closures at their lines.
        var codeFlows: [CodeFlow]?
        /// The mechanical fix, when `reactive-diag fix` has one (the executable's fixer).
        var fixes: [Fix]?
        var baselineState: String
        var properties: ResultProperties
    }

    /// A fix: its description and its edits, file by file.
    struct Fix: Codable, Equatable {
        var description: Message
        var artifactChanges: [ArtifactChange]
    }

    struct ArtifactChange: Codable, Equatable {
        var artifactLocation: ArtifactLocation
        var replacements: [Replacement]
    }

    /// `deletedRegion` (empty for an insertion) replaced by `insertedContent`.
    struct Replacement: Codable, Equatable {
        var deletedRegion: DeletedRegion
        var insertedContent: ArtifactContent?
    }

    struct DeletedRegion: Codable, Equatable {
        var startLine: Int
        var startColumn: Int
        var endLine: Int
        var endColumn: Int
    }

    struct ArtifactContent: Codable, Equatable {
        var text: String
    }

    struct CodeFlow: Codable, Equatable {
        var message: Message?
        var threadFlows: [ThreadFlow]
    }

    struct ThreadFlow: Codable, Equatable {
        var locations: [ThreadFlowLocation]
    }

    struct ThreadFlowLocation: Codable, Equatable {
        var location: Location
    }

    struct ResultProperties: Codable, Equatable {
        var count: Int
        var tests: [String]
        var labels: [String]
        var findingIDs: [Int]
    }

    struct Location: Codable, Equatable {
        var id: Int?
        var physicalLocation: PhysicalLocation?
        var logicalLocations: [LogicalLocation]?
        var message: Message?
    }

    /// A place in a file (`artifactLocation`, `region`) or, without a line, in a binary
    /// (`artifactLocation` the binary, `address` the offset in it).
    struct PhysicalLocation: Codable, Equatable {
        var artifactLocation: ArtifactLocation?
        var region: Region?
        var address: Address?
    }

    struct Address: Codable, Equatable {
        var relativeAddress: Int?
        var fullyQualifiedName: String?
    }

    struct ArtifactLocation: Codable, Equatable {
        var uri: String
        var uriBaseId: String?
    }

    struct Region: Codable, Equatable {
        var startLine: Int
        var startColumn: Int?
    }

    struct LogicalLocation: Codable, Equatable {
        var fullyQualifiedName: String
        var kind: String
    }

    struct Stack: Codable, Equatable {
        var message: Message
        var frames: [StackFrame]
    }

    struct StackFrame: Codable, Equatable {
        var location: Location
        var module: String?
    }
}
