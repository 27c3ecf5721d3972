import Foundation

/// What XCTest said about each test of a run, read from its standard output.
///
/// XCTest on Linux prints `Test Case 'Class.test' started at …` and then `… passed (0.001
/// seconds)`, `… failed (…)` or `… skipped (…)`. Child processes a test starts (OpenCombine's
/// `assertCrashes` re-runs the test in a child that crashes on purpose) print into the same
/// stream, before their parent's verdict: the last verdict of a test is its own. A test that
/// started and has no verdict did not finish (a crash, a hang cut by the timeout).
struct TestLog {
    enum Status: String, Codable, Comparable {
        case passed, failed, skipped, unfinished

        static func < (lhs: Status, rhs: Status) -> Bool {
            lhs.rawValue < rhs.rawValue
        }
    }

    /// By test, `Class/test`.
    private(set) var statuses: [String: Status] = [:]
    /// By test, in seconds, as XCTest measured it.
    private(set) var durations: [String: Double] = [:]

    init(text: String) {
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            // Other output can precede the verdict on the same line (a child's backtrace).
            guard let start = line.range(of: "Test Case '") else { continue }
            let rest = line[start.upperBound...]
            guard let quote = rest.firstIndex(of: "'") else { continue }
            let name = Self.testName(String(rest[..<quote]))
            let verdict = rest[rest.index(after: quote)...].drop { $0 == " " }
            if verdict.hasPrefix("started") {
                if statuses[name] == nil {
                    statuses[name] = .unfinished
                }
            } else if let word = verdict.split(separator: " ").first, let status = Status(rawValue: String(word)) {
                statuses[name] = status
                if let open = verdict.firstIndex(of: "("),
                    let seconds = Double(verdict[verdict.index(after: open)...].prefix { $0 != " " })
                {
                    durations[name] = seconds
                }
            }
        }
    }

    /// `Class.test` (XCTest on Linux), `Module.Class/test` (`--list-tests`, reports) and
    /// `-[Class test]` (Apple) become `Class/test`.
    static func testName(_ raw: String) -> String {
        var name = Substring(raw)
        if name.hasPrefix("-["), name.hasSuffix("]"), let space = name.firstIndex(of: " ") {
            return
                "\(name[name.index(name.startIndex, offsetBy: 2)..<space])/\(name[name.index(after: space)..<name.index(before: name.endIndex)])"
        }
        if let slash = name.lastIndex(of: "/") {
            let owner = name[..<slash]
            let type = owner.split(separator: ".").last.map(String.init) ?? String(owner)
            return "\(type)/\(name[name.index(after: slash)...])"
        }
        if let dot = name.lastIndex(of: ".") {
            name.replaceSubrange(dot...dot, with: "/")
        }
        return String(name)
    }
}
