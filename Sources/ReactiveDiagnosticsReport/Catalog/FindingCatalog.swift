/// What every finding kind means: its name, group, default severity, one-line summary and help
/// (what it is, usual causes, the fix). The engine takes default severities and lifetime kinds
/// from it, `reactive-diag` its SARIF rules and `--fail-on` checks, and a test holds
/// `Docs/Findings.md` to it. Kinds it does not list (an adapter's own) still work everywhere.
///
/// ```swift
/// let leak = FindingCatalog.info(for: "leakedSubscription")
/// print(leak?.summary ?? "", leak?.defaultSeverity == .error)
/// ```
public enum FindingCatalog {
    private static let byName: [String: FindingKindInfo] = Dictionary(
        kinds.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })

    /// The entry for `kind`, or `nil` for a kind the catalog does not list.
    public static func info(for kind: String) -> FindingKindInfo? {
        byName[kind]
    }

    /// Whether the catalog lists `kind`.
    public static func isKnown(_ kind: String) -> Bool {
        byName[kind] != nil
    }
}

/// One finding kind, as ``FindingCatalog`` describes it.
///
/// ```swift
/// for info in FindingCatalog.kinds where info.group == .lifetime {
///     print(info.name, info.summary)
/// }
/// ```
public struct FindingKindInfo: Sendable, Equatable {
    /// What a finding is about.
    public enum Group: String, Sendable, Equatable, CaseIterable {
        /// The stream grammar `next* (finished | failure)` and Reactive Streams' rules.
        case grammar
        /// Declared contracts and thread expectations.
        case contract
        /// Something still alive at the end of a test.
        case lifetime
        /// Scheduler behaviour.
        case scheduler
        /// RxSwift's own rules (the RxDiagnostics adapter).
        case rxSwift = "RxSwift"
    }

    /// The stable name reports, baselines and `--fail-on` use.
    public let name: String
    /// What the finding is about.
    public let group: Group
    /// The severity findings of this kind get unless configured otherwise.
    public let defaultSeverity: ReportSeverity
    /// The module that defines the kind, when it is an adapter rather than the engine.
    public let definedBy: String?
    /// One line.
    public let summary: String
    /// What it means, in a few sentences.
    public let description: String
    /// What usually causes it.
    public let causes: String
    /// How to fix it.
    public let fix: String

    /// Creates an entry.
    public init(
        name: String, group: Group, defaultSeverity: ReportSeverity, definedBy: String?, summary: String,
        description: String, causes: String, fix: String
    ) {
        self.name = name
        self.group = group
        self.defaultSeverity = defaultSeverity
        self.definedBy = definedBy
        self.summary = summary
        self.description = description
        self.causes = causes
        self.fix = fix
    }

    /// Whether findings of this kind are about something still alive at a checkpoint.
    public var isLifetime: Bool {
        group == .lifetime
    }

    /// The help as plain text: what it means, usual causes, fix.
    public var helpText: String {
        "\(description)\nUsual causes: \(causes)\nFix: \(fix)"
    }

    /// The help as Markdown, with a link to the kind's section of the findings guide.
    public var helpMarkdown: String {
        "\(description)\n\n- **Usual causes:** \(causes)\n- **Fix:** \(fix)\n\nSee [\(name)](\(documentationPath))."
    }

    /// The kind's section of the findings guide, relative to the repository root.
    public var documentationPath: String {
        group == .rxSwift ? "Docs/RxSwift.md" : "Docs/Findings.md#\(name.lowercased())"
    }
}
