import Foundation

/// A forward-only JSON reader over raw bytes, for ``FastReportReader``: it reads exactly
/// the values asked for and fails (``JSONCursor/Unsupported``) on anything unexpected,
/// leaving the final word on such input to Foundation's decoder.
///
/// Strict where JSON is strict (no control characters in strings, valid UTF-8, valid
/// escapes, no leading zeros); nesting of skipped values is limited, so hostile input
/// cannot exhaust the stack.
///
/// ```swift
/// var cursor = JSONCursor(bytes: buffer)
/// try cursor.object { cursor, key in
///     if key == "count" { total = try cursor.int() } else { try cursor.skipValue() }
/// }
/// ```
struct JSONCursor {
    /// The input is not something this reader handles; Foundation's decoder decides.
    struct Unsupported: Error {}

    private let bytes: UnsafeRawBufferPointer
    private var position = 0
    private let maximumDepth = 64
    /// The keys of the objects being read, innermost last (one buffer, no allocation per object).
    private var openKeys: [String] = []

    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        openKeys.reserveCapacity(256)
    }

    /// Whether only whitespace is left.
    mutating func isAtEnd() -> Bool {
        skipWhitespace()
        return position == bytes.count
    }

    // MARK: Structure

    /// Reads an object, calling `member` with the cursor on each value. A key given twice is
    /// unsupported: Foundation's two parsers disagree on which value wins.
    mutating func object(_ member: (inout JSONCursor, String) throws -> Void) throws {
        try expect(UInt8(ascii: "{"))
        if consume(UInt8(ascii: "}")) { return }
        let first = openKeys.count
        defer { openKeys.removeSubrange(first...) }
        repeat {
            let key = try string()
            guard !openKeys[first...].contains(key) else { throw Unsupported() }
            openKeys.append(key)
            try expect(UInt8(ascii: ":"))
            try member(&self, key)
        } while consume(UInt8(ascii: ","))
        try expect(UInt8(ascii: "}"))
    }

    /// Reads an array, calling `element` with the cursor on each element.
    mutating func array(_ element: (inout JSONCursor) throws -> Void) throws {
        try expect(UInt8(ascii: "["))
        if consume(UInt8(ascii: "]")) { return }
        repeat {
            try element(&self)
        } while consume(UInt8(ascii: ","))
        try expect(UInt8(ascii: "]"))
    }

    /// Reads an array of values read by `read`.
    mutating func array<T>(of read: (inout JSONCursor) throws -> T) throws -> [T] {
        var values: [T] = []
        try array { cursor in values.append(try read(&cursor)) }
        return values
    }

    /// Consumes `null` and returns `true`, or leaves the cursor and returns `false`.
    mutating func null() -> Bool {
        skipWhitespace()
        guard bytes.count - position >= 4, bytes[position] == UInt8(ascii: "n"), bytes[position + 1] == UInt8(ascii: "u"),
            bytes[position + 2] == UInt8(ascii: "l"), bytes[position + 3] == UInt8(ascii: "l")
        else { return false }
        position += 4
        return true
    }

    /// `read`'s value, or `nil` for `null`.
    mutating func optional<T>(_ read: (inout JSONCursor) throws -> T) throws -> T? {
        null() ? nil : try read(&self)
    }

    // MARK: Values

    /// A string.
    mutating func string() throws -> String {
        try expect(UInt8(ascii: "\""))
        let start = position
        var hasEscapes = false
        var isASCII = true
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let raw = UnsafeRawBufferPointer(rebasing: bytes[start..<position])
                position += 1
                if hasEscapes { return try unescape(raw) }
                // ASCII needs no validation (and skips the unspecialized generic validator).
                return isASCII ? String(decoding: raw, as: UTF8.self) : try utf8(raw)
            }
            if byte < 0x20 { throw Unsupported() }
            if byte >= 0x80 { isASCII = false }
            if byte == UInt8(ascii: "\\") {
                hasEscapes = true
                position += 1
            }
            position += 1
        }
        throw Unsupported()
    }

    /// An integer without fraction or exponent.
    mutating func int() throws -> Int {
        let (negative, magnitude) = try integerParts()
        if negative {
            guard magnitude <= UInt64(Int.max) + 1 else { throw Unsupported() }
            return magnitude == UInt64(Int.max) + 1 ? Int.min : -Int(magnitude)
        }
        guard magnitude <= UInt64(Int.max) else { throw Unsupported() }
        return Int(magnitude)
    }

    /// A 32-bit integer.
    mutating func int32() throws -> Int32 {
        guard let value = Int32(exactly: try int()) else { throw Unsupported() }
        return value
    }

    /// A non-negative integer up to `UInt64.max`.
    mutating func uint64() throws -> UInt64 {
        let (negative, magnitude) = try integerParts()
        guard !negative || magnitude == 0 else { throw Unsupported() }
        return magnitude
    }

    /// Any JSON number as a `Double`.
    mutating func double() throws -> Double {
        skipWhitespace()
        let start = position
        if peek() == UInt8(ascii: "-") { position += 1 }
        try digits(allowLeadingZero: false)
        if peek() == UInt8(ascii: ".") {
            position += 1
            try digits(allowLeadingZero: true)
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            position += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { position += 1 }
            try digits(allowLeadingZero: true)
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw Unsupported() }
        return value
    }

    /// `true` or `false`.
    mutating func bool() throws -> Bool {
        skipWhitespace()
        if matches("true") { return true }
        if matches("false") { return false }
        throw Unsupported()
    }

    /// Skips any value (depth-limited).
    mutating func skipValue(depth: Int = 0) throws {
        guard depth < maximumDepth else { throw Unsupported() }
        skipWhitespace()
        switch peek() {
        case UInt8(ascii: "{"): try object { cursor, _ in try cursor.skipValue(depth: depth + 1) }
        case UInt8(ascii: "["): try array { cursor in try cursor.skipValue(depth: depth + 1) }
        case UInt8(ascii: "\""): _ = try string()
        case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try bool()
        case UInt8(ascii: "n"): if !null() { throw Unsupported() }
        default: _ = try double()
        }
    }

    // MARK: Bytes

    private func peek() -> UInt8? {
        position < bytes.count ? bytes[position] : nil
    }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard peek() == byte else { return false }
        position += 1
        return true
    }

    private mutating func expect(_ byte: UInt8) throws {
        guard consume(byte) else { throw Unsupported() }
    }

    private mutating func matches(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard bytes.count - position >= count else { return false }
        for offset in 0..<count where bytes[position + offset] != word.utf8Start[offset] {
            return false
        }
        position += count
        return true
    }

    private mutating func digits(allowLeadingZero: Bool) throws {
        let start = position
        while let byte = peek(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
            position += 1
        }
        guard position > start else { throw Unsupported() }
        if !allowLeadingZero, position - start > 1, bytes[start] == UInt8(ascii: "0") { throw Unsupported() }
    }

    private mutating func integerParts() throws -> (negative: Bool, magnitude: UInt64) {
        skipWhitespace()
        let negative = consume(UInt8(ascii: "-"))
        let start = position
        var value: UInt64 = 0
        while let byte = peek(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { throw Unsupported() }
            value = sum
            position += 1
        }
        guard position > start, !(position - start > 1 && bytes[start] == UInt8(ascii: "0")) else { throw Unsupported() }
        if let next = peek(), next == UInt8(ascii: ".") || next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
            throw Unsupported()
        }
        return (negative, value)
    }

    private func utf8(_ raw: UnsafeRawBufferPointer) throws -> String {
        guard let text = String(validating: raw, as: UTF8.self) else { throw Unsupported() }
        return text
    }

    private func unescape(_ raw: UnsafeRawBufferPointer) throws -> String {
        var output: [UInt8] = []
        output.reserveCapacity(raw.count)
        var index = 0
        while index < raw.count {
            let byte = raw[index]
            guard byte == UInt8(ascii: "\\") else {
                output.append(byte)
                index += 1
                continue
            }
            guard index + 1 < raw.count else { throw Unsupported() }
            let escaped = raw[index + 1]
            index += 2
            switch escaped {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(escaped)
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4(raw, at: index)
                index += 4
                if (0xD800..<0xDC00).contains(scalar) {
                    guard index + 6 <= raw.count, raw[index] == UInt8(ascii: "\\"), raw[index + 1] == UInt8(ascii: "u") else {
                        throw Unsupported()
                    }
                    let low = try hex4(raw, at: index + 2)
                    guard (0xDC00..<0xE000).contains(low) else { throw Unsupported() }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    index += 6
                } else if (0xDC00..<0xE000).contains(scalar) {
                    throw Unsupported()
                }
                guard let unicode = Unicode.Scalar(scalar) else { throw Unsupported() }
                output.append(contentsOf: String(Character(unicode)).utf8)
            default:
                throw Unsupported()
            }
        }
        return try output.withUnsafeBytes { try utf8($0) }
    }

    private func hex4(_ raw: UnsafeRawBufferPointer, at index: Int) throws -> UInt32 {
        guard index + 4 <= raw.count else { throw Unsupported() }
        var value: UInt32 = 0
        for offset in 0..<4 {
            let byte = raw[index + offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw Unsupported()
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }
}
