public import Foundation

/// Known findings to suppress, in the spirit of LeakSanitizer's `leak:` suppressions.
///
/// Each line of a suppressions file is `TYPE:PATTERN`. `TYPE` is a finding kind
/// (`leakedSubscription`), `leak` (every lifetime kind) or `*` (any kind). `PATTERN` is
/// matched against the finding's label and every symbolized frame (function, module and
/// image name) of its stacks: a substring match where `*` matches anything, `^` anchors
/// at the start and `$` at the end. `#` starts a comment.
///
/// ```text
/// # Third-party SDK keeps a timer forever
/// uncancelledTimer:AnalyticsSDK.
/// leak:^LegacyImageCache
/// *:label-from-vendor-code
/// ```
///
/// Suppressed findings stay in the report with `suppressedBy` set; they never fail a test.
///
/// ```swift
/// let suppressions = try Suppressions(parsing: "uncancelledTimer:AnalyticsSDK.\nleak:^LegacyImageCache")
/// ReactiveDiagnosticsXCTest.install(suppressions: suppressions)
/// let rule = suppressions.match(kind: .leakedSubscription, texts: ["LegacyImageCache.load"])   // leak:^LegacyImageCache
/// ```
public struct Suppressions: Sendable, Hashable {
    /// One rule.
    public struct Rule: Sendable, Hashable, CustomStringConvertible {
        /// `leak`, `*` or a finding kind.
        public var type: String
        /// The pattern.
        public var pattern: String

        /// Creates a rule.
        public init(type: String, pattern: String) {
            self.type = type
            self.pattern = pattern
        }

        /// The rule as a line of a suppressions file spells it: `type:pattern`.
        public var description: String { "\(type):\(pattern)" }

        /// Whether the rule's type covers `kind`.
        public func applies(to kind: FindingKind) -> Bool {
            type == "*" || type == kind.rawValue || (type == "leak" && kind.isLifetime)
        }

        /// Whether `text` matches the pattern.
        public func matches(_ text: String) -> Bool {
            Self.glob(pattern, matches: text)
        }

        static func glob(_ pattern: String, matches text: String) -> Bool {
            var bytes = Array(pattern.utf8)
            let star = UInt8(ascii: "*")
            if bytes.first == UInt8(ascii: "^") { bytes.removeFirst() } else { bytes.insert(star, at: 0) }
            if bytes.last == UInt8(ascii: "$") { bytes.removeLast() } else { bytes.append(star) }
            let text = Array(text.utf8)
            // Classic wildcard matching with single-star backtracking: O(pattern × text).
            var patternIndex = 0
            var textIndex = 0
            var lastStar = -1
            var resumeText = 0
            while textIndex < text.count {
                if patternIndex < bytes.count && bytes[patternIndex] != star
                    && bytes[patternIndex] == text[textIndex]
                {
                    patternIndex += 1
                    textIndex += 1
                } else if patternIndex < bytes.count && bytes[patternIndex] == star {
                    lastStar = patternIndex
                    resumeText = textIndex
                    patternIndex += 1
                } else if lastStar >= 0 {
                    patternIndex = lastStar + 1
                    resumeText += 1
                    textIndex = resumeText
                } else {
                    return false
                }
            }
            while patternIndex < bytes.count && bytes[patternIndex] == star {
                patternIndex += 1
            }
            return patternIndex == bytes.count
        }
    }

    /// The rules, in file order.
    public var rules: [Rule]

    /// Creates a set of rules.
    public init(rules: [Rule] = []) {
        self.rules = rules
    }

    /// Parses suppressions text.
    ///
    /// - Throws: ``ConfigurationError`` naming the line that is not `TYPE:PATTERN`.
    public init(parsing text: String, source: String = "suppressions") throws(ConfigurationError) {
        var rules: [Rule] = []
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line =
                rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first
                .map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            if line.isEmpty { continue }
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex,
                line.index(after: colon) != line.endIndex
            else {
                throw ConfigurationError("\(source):\(number + 1): '\(line)' is not TYPE:PATTERN")
            }
            rules.append(
                Rule(
                    type: String(line[..<colon]).trimmingCharacters(in: .whitespaces),
                    pattern: String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)))
        }
        self.rules = rules
    }

    /// Loads a suppressions file.
    public init(contentsOf url: URL) throws(ConfigurationError) {
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw ConfigurationError("cannot read suppressions file \(url.path): \(error.localizedDescription)")
        }
        try self.init(parsing: text, source: url.path)
    }

    /// The first rule matching a finding, given the texts that describe it (label, frames).
    public func match(kind: FindingKind, texts: [String]) -> Rule? {
        rules.first { rule in
            rule.applies(to: kind) && texts.contains(where: rule.matches)
        }
    }
}
