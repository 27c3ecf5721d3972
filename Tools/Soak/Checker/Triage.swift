import Foundation

/// The checked-in classification of every finding the soak has seen (`Tools/Soak/triage.tsv`):
/// one line per fingerprint and suite, tab-separated,
/// `suite  test  kind  fingerprint  verdict  reason`, `#` starting a comment line.
///
/// `true`: the test misuses the framework on purpose (or really leaks), and the reason says
/// how. `false`: ReactiveDiagnostics was wrong, and the reason names the fix. Fingerprints
/// come from kind, label and symbolized frames, so they survive rebuilds and machines.
struct Triage {
    enum Verdict: String, Codable {
        case `true`, `false`
    }

    struct Entry: Codable, Hashable {
        var suite: String
        var test: String
        var kind: String
        var fingerprint: String
        var verdict: Verdict
        var reason: String
    }

    struct Key: Hashable {
        var suite: String
        var fingerprint: String
    }

    private(set) var entries: [Key: Entry] = [:]

    init(entries: [Entry] = []) {
        for entry in entries {
            self.entries[Key(suite: entry.suite, fingerprint: entry.fingerprint)] = entry
        }
    }

    /// Reads the file; a malformed line is an error naming the line.
    init(contentsOf url: URL) throws {
        let text = try String(contentsOf: url, encoding: .utf8)
        var entries: [Entry] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 6, let verdict = Verdict(rawValue: fields[4]), !fields[5].isEmpty else {
                throw SoakError(
                    "\(url.path):\(index + 1): expected 'suite<TAB>test<TAB>kind<TAB>fingerprint<TAB>true|false<TAB>reason'"
                )
            }
            entries.append(
                Entry(
                    suite: fields[0], test: fields[1], kind: fields[2], fingerprint: fields[3], verdict: verdict,
                    reason: fields[5]))
        }
        self.init(entries: entries)
    }

    func entry(suite: String, fingerprint: String) -> Entry? {
        entries[Key(suite: suite, fingerprint: fingerprint)]
    }

    /// `Entry` as a line of the file.
    static func line(_ entry: Entry) -> String {
        [entry.suite, entry.test, entry.kind, entry.fingerprint, entry.verdict.rawValue, entry.reason].joined(
            separator: "\t")
    }
}

struct SoakError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
