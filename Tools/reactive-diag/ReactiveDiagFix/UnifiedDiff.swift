/// A unified diff (`diff -u`, three lines of context) between two versions of one file.
enum UnifiedDiff {
    /// The diff of `old` and `new`, with `--- a/<path>` and `+++ b/<path>`; empty when equal.
    static func make(path: String, old: String, new: String, context: Int = 3) -> String {
        let a = lines(old)
        let b = lines(new)
        guard a != b else { return "" }
        let operations = script(a, b)
        // Group the operations into hunks: changes with up to 2×context equal lines between.
        var hunks: [[(kind: Character, text: String, aLine: Int, bLine: Int)]] = []
        var current: [(kind: Character, text: String, aLine: Int, bLine: Int)] = []
        var equalRun: [(kind: Character, text: String, aLine: Int, bLine: Int)] = []
        var aLine = 1
        var bLine = 1
        for operation in operations {
            let entry = (kind: operation.kind, text: operation.text, aLine: aLine, bLine: bLine)
            switch operation.kind {
            case " ":
                aLine += 1
                bLine += 1
                equalRun.append(entry)
                if !current.isEmpty, equalRun.count > 2 * context {
                    current += equalRun.prefix(context)
                    hunks.append(current)
                    current = []
                    equalRun = Array(equalRun.suffix(context))
                }
            default:
                if operation.kind == "-" { aLine += 1 } else { bLine += 1 }
                if current.isEmpty {
                    current = Array(equalRun.suffix(context))
                } else {
                    current += equalRun
                }
                equalRun = []
                current.append(entry)
            }
        }
        if !current.isEmpty {
            current += equalRun.prefix(context)
            hunks.append(current)
        }
        var output = "--- a/\(path)\n+++ b/\(path)\n"
        for hunk in hunks {
            let aCount = hunk.filter { $0.kind != "+" }.count
            let bCount = hunk.filter { $0.kind != "-" }.count
            let aStart = hunk.first { $0.kind != "+" }?.aLine ?? (hunk[0].aLine - 1)
            let bStart = hunk.first { $0.kind != "-" }?.bLine ?? (hunk[0].bLine - 1)
            output += "@@ -\(range(aStart, aCount)) +\(range(bStart, bCount)) @@\n"
            for entry in hunk {
                output += "\(entry.kind)\(entry.text)\n"
            }
        }
        return output
    }

    private static func range(_ start: Int, _ count: Int) -> String {
        count == 1 ? "\(start)" : "\(start),\(count)"
    }

    private static func lines(_ text: String) -> [String] {
        var result = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if result.last == "" { result.removeLast() }
        return result
    }

    /// The edit script: equal lines (" "), deletions ("-"), insertions ("+"), by the longest
    /// common subsequence of the part between the common prefix and suffix.
    private static func script(_ a: [String], _ b: [String]) -> [(kind: Character, text: String)] {
        var prefix = 0
        while prefix < a.count, prefix < b.count, a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < a.count - prefix, suffix < b.count - prefix, a[a.count - 1 - suffix] == b[b.count - 1 - suffix] {
            suffix += 1
        }
        let middleA = Array(a[prefix..<(a.count - suffix)])
        let middleB = Array(b[prefix..<(b.count - suffix)])
        var table = Array(repeating: Array(repeating: 0, count: middleB.count + 1), count: middleA.count + 1)
        for i in stride(from: middleA.count - 1, through: 0, by: -1) {
            for j in stride(from: middleB.count - 1, through: 0, by: -1) {
                table[i][j] =
                    middleA[i] == middleB[j] ? table[i + 1][j + 1] + 1 : max(table[i + 1][j], table[i][j + 1])
            }
        }
        var result: [(kind: Character, text: String)] = a[..<prefix].map { (" ", $0) }
        var i = 0
        var j = 0
        while i < middleA.count || j < middleB.count {
            if i < middleA.count, j < middleB.count, middleA[i] == middleB[j] {
                result.append((" ", middleA[i]))
                i += 1
                j += 1
            } else if j < middleB.count, i == middleA.count || table[i][j + 1] > table[i + 1][j] {
                result.append(("+", middleB[j]))
                j += 1
            } else {
                result.append(("-", middleA[i]))
                i += 1
            }
        }
        result += a[(a.count - suffix)...].map { (" ", $0) }
        return result
    }
}
