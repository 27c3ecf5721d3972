/// Escaping for text that reaches HTML. Both work on UTF-8 bytes: linear, one allocation.
package enum HTMLText {
    /// `text` safe in element content and in quoted attribute values: `& < > " '` as entities.
    package static func escape(_ text: String) -> String {
        let utf8 = text.utf8
        guard utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 }) else {
            return text
        }
        var output: [UInt8] = []
        output.reserveCapacity(utf8.count + 32)
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "&"): output.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): output.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): output.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "\""): output.append(contentsOf: "&quot;".utf8)
            case UInt8(ascii: "'"): output.append(contentsOf: "&#39;".utf8)
            default: output.append(byte)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// JSON made safe inside `<script type="application/json">`: `<`, `>` and `&` as `\u003c`,
    /// `\u003e`, `\u0026` (so no `</script>` or `<!--` can appear), U+2028 and U+2029 escaped too.
    /// The JSON value is unchanged: these escapes are valid inside JSON strings, and outside
    /// strings JSON has none of these characters.
    package static func scriptJSON(_ json: String) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(json.utf8.count + 64)
        for byte in json.utf8 {
            switch byte {
            case UInt8(ascii: "<"): output.append(contentsOf: "\\u003c".utf8)
            case UInt8(ascii: ">"): output.append(contentsOf: "\\u003e".utf8)
            case UInt8(ascii: "&"): output.append(contentsOf: "\\u0026".utf8)
            case 0xA8...0xA9
            where output.count >= 2 && output[output.count - 2] == 0xE2 && output[output.count - 1] == 0x80:
                // U+2028 and U+2029 (E2 80 A8/A9).
                output.removeLast(2)
                output.append(contentsOf: (byte == 0xA8 ? "\\u2028" : "\\u2029").utf8)
            default: output.append(byte)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
