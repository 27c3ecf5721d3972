import Foundation

/// Number and text formatting shared by the renderers. Locale-independent, so output is
/// the same on every machine.
enum Formatting {
    /// `1 finding`, `2 findings`.
    static func count(_ value: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(value) \(value == 1 ? singular : plural ?? singular + "s")"
    }

    /// A duration in nanoseconds: `850 ns`, `1.2 µs`, `3.4 ms`, `1.25 s`.
    static func duration(nanoseconds: Double) -> String {
        // A report may say anything (an end before its start, an infinite latency): never trap.
        guard nanoseconds.isFinite else { return "?" }
        if nanoseconds < 0 {
            return "-" + duration(nanoseconds: -nanoseconds)
        }
        if nanoseconds < 1_000 {
            return "\(Int(nanoseconds.rounded())) ns"
        }
        if nanoseconds < 1_000_000 {
            return decimal(nanoseconds / 1_000) + " µs"
        }
        if nanoseconds < 1_000_000_000 {
            return decimal(nanoseconds / 1_000_000) + " ms"
        }
        return decimal(nanoseconds / 1_000_000_000) + " s"
    }

    /// A duration in nanoseconds given as an integer.
    static func duration(nanoseconds: UInt64) -> String {
        duration(nanoseconds: Double(nanoseconds))
    }

    /// Seconds: `12.3 s`, `850 ms`.
    static func seconds(_ value: Double) -> String {
        duration(nanoseconds: value * 1_000_000_000)
    }

    /// Three significant digits at most, no trailing zeros: `1.2`, `12.5`, `125`.
    static func decimal(_ value: Double) -> String {
        let digits = value >= 100 ? 0 : value >= 10 ? 1 : 2
        var text = String(format: "%.\(digits)f", value)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text
    }

    /// `text` padded with spaces to `width` characters (longer text is left alone).
    static func pad(_ text: String, _ width: Int) -> String {
        let length = text.count
        return length >= width ? text : text + String(repeating: " ", count: width - length)
    }

    /// `text` right-aligned in `width` characters.
    static func padLeft(_ text: String, _ width: Int) -> String {
        let length = text.count
        return length >= width ? text : String(repeating: " ", count: width - length) + text
    }

    /// A list with at most `limit` items and `, … (n more)` after.
    static func list(_ items: [String], limit: Int) -> String {
        let shown = items.prefix(limit).joined(separator: ", ")
        return items.count > limit ? "\(shown), … (\(items.count - limit) more)" : shown
    }

    /// Quotes a label: `"cart.refresh"`.
    static func quoted(_ text: String) -> String {
        "\"\(text)\""
    }
}

/// A plain-text table with left-aligned first column and right-aligned numbers.
struct TextTable {
    /// Column headings.
    var headings: [String]
    /// Rows of cells.
    var rows: [[String]] = []

    /// The rendered lines, each starting with `indent`.
    func lines(indent: String) -> [String] {
        var widths = headings.map(\.count)
        for row in rows {
            for (column, cell) in row.enumerated() where column < widths.count {
                widths[column] = max(widths[column], cell.count)
            }
        }
        func render(_ cells: [String]) -> String {
            var line = indent
            for (column, cell) in cells.enumerated() {
                if column == 0 {
                    line += Formatting.pad(cell, widths[0])
                } else {
                    line += "  " + Formatting.padLeft(cell, widths[column])
                }
            }
            return line
        }
        return [render(headings)] + rows.map(render)
    }
}
