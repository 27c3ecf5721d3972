/// Makes report strings safe to print on a terminal: a label or symbol must not be able to
/// move the cursor, change colours, set the window title or reorder text.
///
/// Control characters (C0, DEL, C1) become caret or `\u{…}` notation, tabs and line breaks
/// a space, and bidirectional overrides (the "Trojan Source" characters) `\u{…}` notation.
///
/// ```swift
/// TerminalText.sanitize("cart\u{1B}]0;pwned\u{07}")   // "cart^[]0;pwned^G"
/// ```
package enum TerminalText {
    /// `text` with every character that could steer a terminal made visible.
    package static func sanitize(_ text: String) -> String {
        // Printable ASCII (nearly every string) needs nothing; only then look at scalars.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalar.value {
            case 0x09, 0x0A, 0x0D: result += " "
            case 0x00..<0x20: result += "^" + String(UnicodeScalar(UInt8(scalar.value + 0x40)))
            case 0x7F: result += "^?"
            default: result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return result
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00..<0x20, 0x7F, 0x80..<0xA0: return true
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: return true
        default: return false
        }
    }
}
