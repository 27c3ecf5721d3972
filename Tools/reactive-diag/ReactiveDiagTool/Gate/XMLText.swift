/// Escaping for XML 1.0 text and attribute values.
package enum XMLText {
    /// `text` with `& < > " '` as entities, and the control characters XML 1.0 forbids
    /// replaced by U+FFFD (tab, newline and carriage return are kept; in attributes they
    /// become character references so parsers keep them). Works on UTF-8 bytes: linear,
    /// one allocation.
    package static func escape(_ text: String, attribute: Bool = false) -> String {
        let utf8 = text.utf8
        let needsWork =
            utf8.withContiguousStorageIfAvailable { bytes in bytes.contains(where: needsEscape) }
            ?? utf8.contains(where: needsEscape)
        guard needsWork else { return text }
        var output: [UInt8] = []
        output.reserveCapacity(utf8.count + utf8.count / 8 + 16)
        var previous: (UInt8, UInt8) = (0, 0)
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "&"): output.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): output.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): output.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "\""): output.append(contentsOf: "&quot;".utf8)
            case UInt8(ascii: "'"): output.append(contentsOf: "&apos;".utf8)
            case 0x0A: output.append(contentsOf: attribute ? Array("&#10;".utf8) : [0x0A])
            case 0x0D: output.append(contentsOf: "&#13;".utf8)
            case 0x09: output.append(contentsOf: attribute ? Array("&#9;".utf8) : [0x09])
            case 0x00..<0x20: output.append(contentsOf: [0xEF, 0xBF, 0xBD])  // U+FFFD
            case 0xBE...0xBF where previous == (0xEF, 0xBF):
                // U+FFFE and U+FFFF are not XML characters either.
                output.removeLast(2)
                output.append(contentsOf: [0xEF, 0xBF, 0xBD])
            default: output.append(byte)
            }
            previous = (previous.1, byte)
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">")
            || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") || byte == 0xBF
    }
}
