import Foundation
import ReactiveDiagTool
import SwiftParser
import SwiftSyntax

/// A source file as the fixer reads it: its bytes, its lines, its syntax tree.
struct SourceText {
    let path: String
    let text: String
    let bytes: [UInt8]
    let tree: SourceFileSyntax
    /// The UTF-8 offset where each line starts (line 1 at index 0).
    let lineStarts: [Int]

    init(path: String, text: String) {
        self.path = path
        self.text = text
        bytes = Array(text.utf8)
        tree = Parser.parse(source: text)
        var starts = [0]
        for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") {
            starts.append(index + 1)
        }
        lineStarts = starts
    }

    var lineCount: Int {
        lineStarts.count
    }

    /// The 1-based line of a UTF-8 offset.
    func line(of offset: Int) -> Int {
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if lineStarts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        return low + 1
    }

    /// Line `line` (1-based), without its line break.
    func lineText(_ line: Int) -> String? {
        guard line >= 1, line <= lineStarts.count else { return nil }
        let start = lineStarts[line - 1]
        var end = line < lineStarts.count ? lineStarts[line] - 1 : bytes.count
        if end > start, bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        return String(decoding: bytes[start..<max(start, end)], as: UTF8.self)
    }

    /// Line `line`, trimmed as the report records it.
    func trimmedLine(_ line: Int) -> String? {
        lineText(line)?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A UTF-8 offset as the gate's SARIF counts it (`columnKind` `unicodeCodePoints`): 1-based line and column.
    func sarifPosition(of offset: Int) -> (line: Int, column: Int) {
        let line = line(of: offset)
        let start = lineStarts[line - 1]
        let prefix = String(decoding: bytes[start..<offset], as: UTF8.self)
        return (line, prefix.unicodeScalars.count + 1)
    }

    /// The text with `edits` applied (none overlapping).
    func applying(_ edits: [TextEdit]) -> String {
        var result = bytes
        for edit in edits.sorted(by: { $0.range.lowerBound > $1.range.lowerBound }) {
            result.replaceSubrange(edit.range, with: Array(edit.text.utf8))
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// The edits as SARIF replacements.
    func replacements(_ edits: [TextEdit]) -> [SourceReplacement] {
        edits.sorted { $0.range.lowerBound < $1.range.lowerBound }.map { edit in
            let start = sarifPosition(of: edit.range.lowerBound)
            let end = sarifPosition(of: edit.range.upperBound)
            return SourceReplacement(
                startLine: start.line, startColumn: start.column, endLine: end.line, endColumn: end.column,
                insertedText: edit.text)
        }
    }

    /// Text of a node without its surrounding trivia.
    static func trimmed(_ node: some SyntaxProtocol) -> String {
        node.trimmedDescription
    }
}

/// One replacement of a byte range of a file.
struct TextEdit: Hashable, Sendable {
    var range: Range<Int>
    var text: String

    /// Inserts `text` at `position`.
    static func insert(_ text: String, at position: AbsolutePosition) -> TextEdit {
        TextEdit(range: position.utf8Offset..<position.utf8Offset, text: text)
    }

    /// Replaces from `start` to `end`.
    static func replace(_ start: AbsolutePosition, _ end: AbsolutePosition, with text: String) -> TextEdit {
        TextEdit(range: start.utf8Offset..<end.utf8Offset, text: text)
    }

    func overlaps(_ other: TextEdit) -> Bool {
        if range.isEmpty && other.range.isEmpty {
            return range.lowerBound == other.range.lowerBound && text != other.text
        }
        return range.overlaps(other.range)
            || (range.isEmpty && other.range.contains(range.lowerBound) && other.range.lowerBound != range.lowerBound)
            || (other.range.isEmpty && range.contains(other.range.lowerBound)
                && range.lowerBound != other.range.lowerBound)
    }
}

extension SyntaxProtocol {
    /// The nearest ancestor of type `T`.
    func ancestor<T: SyntaxProtocol>(_ type: T.Type) -> T? {
        var node = parent
        while let current = node {
            if let match = current.as(T.self) { return match }
            node = current.parent
        }
        return nil
    }
}
