import Foundation

extension ReportRetainPath {
    /// The user's closures among `links`, each with the name of what it captures next (the
    /// next closure, or the object the links reach).
    static func userClosures(_ links: [ReportRetainLink]) -> [(closure: ReportClosure, captured: String?)] {
        var result: [(ReportClosure, String?)] = []
        for (index, link) in links.enumerated() {
            guard let closure = link.closure, closure.category == .user else { continue }
            // Its capture is the next `capture` link, or, when its context is the captured
            // object itself, the name recorded on the closure link.
            let capture = links[(index + 1)...].first { $0.kind == .capture || $0.kind == .closure }
            let name = capture?.kind == .capture ? capture?.name : link.name
            result.append((closure, name))
        }
        return result
    }

    /// `.cancellables.state` for the properties among `links`.
    static func fieldPath(_ links: [ReportRetainLink]) -> String {
        links.filter { $0.kind == .field }.compactMap(\.name).map { "." + $0 }.joined()
    }

    /// How `links` hold the next object, in words:
    /// `.receiveValue: closure at FeedViewModel.swift:32 captures `self` strongly`.
    static func linkText(_ links: [ReportRetainLink], reaching next: ReportRetainStep?) -> String {
        let fields = links.filter { $0.kind == .field }
        var text = fieldPath(links)
        let closures = userClosures(links)
        let strength = links.last?.strength ?? .strong
        if closures.isEmpty {
            if links.contains(where: { $0.kind == .untyped }) {
                text += (text.isEmpty ? "" : ": ") + "a capture whose type could not be read"
            } else if let type = fields.last?.type {
                text += ": " + displayType(type)
            }
            if strength != .strong {
                text += " (\(strengthWord(strength)))"
            }
            return text
        }
        var parts: [String] = []
        for (index, entry) in closures.enumerated() {
            let opening = index == 0 ? closureText(entry.closure) : "a \(closureText(entry.closure)) that"
            let captured =
                entry.captured.map { "`\($0)`" }
                ?? (index == closures.count - 1
                    ? next.map { displayType($0.type) } ?? "a value" : "a closure")
            parts.append(opening + " captures " + captured)
        }
        text += (text.isEmpty ? "" : ": ") + parts.joined(separator: ", ") + " " + strengthWord(strength)
        return text
    }

    static func strengthWord(_ strength: ReportReferenceStrength) -> String {
        switch strength {
        case .strong: return "strongly"
        case .weak: return "weakly"
        case .unowned: return "unowned"
        case .notStrong: return "weakly (weak or unowned)"
        case .unknown: return "(strength unknown: memory the walk could not type)"
        }
    }

    /// `closure at FeedViewModel.swift:32`, or its function's name when the line is unknown.
    static func closureText(_ closure: ReportClosure) -> String {
        if let file = closure.file, let line = closure.line, line > 0 {
            let name = file.split(separator: "/").last.map(String.init) ?? file
            return "closure at \(name):\(line)"
        }
        return closure.function
    }

    /// A type as people write it: `[String]` for `Array<String>`, `[K: V]` for
    /// `Dictionary<K, V>`, `T?` for `Optional<T>`.
    ///
    /// ```swift
    /// ReportRetainPath.displayType("Sink<Array<String>, Never>")   // "Sink<[String], Never>"
    /// ```
    public static func displayType(_ type: String) -> String {
        var parser = TypeNameParser(Array(type))
        return parser.parseList(until: nil)
    }

    /// ``displayType(_:)`` with generic arguments nested deeper than `depth` elided:
    /// `Conduit<SubscriberTap<…>>` for a framework's deeply nested wrapper types.
    static func displayType(_ type: String, depth: Int) -> String {
        var parser = TypeNameParser(Array(type))
        parser.maximumDepth = depth
        return parser.parseList(until: nil)
    }
}

/// Rewrites generic type names (`Array<X>`, `Dictionary<K, V>`, `Optional<X>`) into sugar,
/// leaving everything else as written.
private struct TypeNameParser {
    let characters: [Character]
    var index = 0
    var maximumDepth = Int.max
    private var depth = 0

    init(_ characters: [Character]) {
        self.characters = characters
    }

    /// Text up to `terminator` (not consumed) at this nesting level.
    mutating func parseList(until terminator: Character?) -> String {
        var output = ""
        var parentheses = 0
        while index < characters.count {
            let character = characters[index]
            let isArrow = character == ">" && index > 0 && characters[index - 1] == "-"
            if character == "(" { parentheses += 1 }
            if character == ")" { parentheses -= 1 }
            if !isArrow, parentheses <= 0, character == terminator || (terminator == ">" && character == ",") {
                return output
            }
            if character == "<" {
                index += 1
                var arguments: [String] = []
                depth += 1
                defer { depth -= 1 }
                while index < characters.count {
                    arguments.append(parseList(until: ">").trimmingCharacters(in: .whitespaces))
                    if index < characters.count, characters[index] == "," {
                        index += 1
                        continue
                    }
                    break
                }
                if index < characters.count, characters[index] == ">" {
                    index += 1
                }
                output = sugar(output, depth > maximumDepth ? ["…"] : arguments)
                continue
            }
            output.append(character)
            index += 1
        }
        return output
    }

    private func sugar(_ prefix: String, _ arguments: [String]) -> String {
        let nameStart =
            prefix.lastIndex { !($0.isLetter || $0.isNumber || $0 == "_" || $0 == ".") }
            .map { prefix.index(after: $0) } ?? prefix.startIndex
        let head = String(prefix[..<nameStart])
        let name = String(prefix[nameStart...])
        switch (name, arguments.count) {
        case ("Dictionary", 1), ("Swift.Dictionary", 1):
            return head + "[…]"
        case ("Array", 1), ("Swift.Array", 1):
            return head + "[\(arguments[0])]"
        case ("Dictionary", 2), ("Swift.Dictionary", 2):
            return head + "[\(arguments[0]): \(arguments[1])]"
        case ("Optional", 1), ("Swift.Optional", 1):
            let wrapped = arguments[0]
            return head + (wrapped.contains(" ") ? "(\(wrapped))?" : "\(wrapped)?")
        default:
            return head + name + "<" + arguments.joined(separator: ", ") + ">"
        }
    }
}
