/// Why the reader stopped: bad syntax (truncated or corrupt bytes) or a well-formed
/// document that does not have the report's shape.
struct JSONReadError: Error {
    enum Kind {
        case syntax
        case shape
    }

    var kind: Kind
    var message: String
}

/// A single-pass, allocation-light JSON reader over bytes, for reports.
///
/// Reads straight into the report's types (no intermediate tree), limits nesting depth,
/// and names the path of whatever it finds wrong (`findings[3].severity`).
struct JSONReader {
    private let bytes: UnsafeBufferPointer<UInt8>
    private(set) var position = 0
    private var depth = 0
    private let maximumDepth: Int
    /// Where the reader is, for error messages: keys and `[index]`es.
    var path: [String] = []

    init(_ bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    // MARK: Errors

    var pathDescription: String {
        var text = ""
        for component in path {
            if component.hasPrefix("[") || text.isEmpty {
                text += component
            } else {
                text += "." + component
            }
        }
        return text.isEmpty ? "the top level" : text
    }

    func syntax(_ message: String) -> JSONReadError {
        JSONReadError(kind: .syntax, message: "\(message) at byte \(position)")
    }

    func shape(_ message: String) -> JSONReadError {
        JSONReadError(kind: .shape, message: "\(pathDescription) \(message)")
    }

    func missing(_ field: String) -> JSONReadError {
        let place = path.isEmpty ? "" : " in \(pathDescription)"
        return JSONReadError(kind: .shape, message: "missing field '\(field)'\(place)")
    }

    /// Moves back to a position seen earlier (to re-read a value another way).
    mutating func rewind(to mark: Int) {
        position = mark
    }

    // MARK: Scanning

    @inline(__always)
    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    @inline(__always)
    private mutating func peek() throws(JSONReadError) -> UInt8 {
        skipWhitespace()
        guard position < bytes.count else { throw syntax("unexpected end of input") }
        return bytes[position]
    }

    private mutating func expect(_ byte: UInt8) throws(JSONReadError) {
        guard try peek() == byte else {
            throw syntax("expected '\(Character(Unicode.Scalar(byte)))'")
        }
        position += 1
    }

    /// Whether the next value is `null` (consumed if so).
    mutating func readNull() throws(JSONReadError) -> Bool {
        guard try peek() == UInt8(ascii: "n") else { return false }
        try literal("null")
        return true
    }

    private mutating func literal(_ word: StaticString) throws(JSONReadError) {
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count else { throw syntax("unexpected end of input") }
        let matches = word.withUTF8Buffer { expected in
            (0..<count).allSatisfy { bytes[position + $0] == expected[$0] }
        }
        guard matches else { throw syntax("invalid literal") }
        position += count
    }

    /// Fails unless only whitespace is left.
    mutating func expectEnd() throws(JSONReadError) {
        skipWhitespace()
        if position != bytes.count {
            throw syntax("unexpected content after the report")
        }
    }

    // MARK: Containers

    /// For each open container: whether no member or element has been read yet.
    private var first: [Bool] = []

    private mutating func enter() throws(JSONReadError) {
        position += 1
        depth += 1
        if depth > maximumDepth {
            throw syntax("nesting deeper than \(maximumDepth) levels")
        }
        first.append(true)
    }

    private mutating func leave() {
        position += 1
        depth -= 1
        first.removeLast()
    }

    /// Consumes the separator before a member or element that is not the first.
    private mutating func separator(closing: UInt8) throws(JSONReadError) {
        if first[first.count - 1] {
            first[first.count - 1] = false
            return
        }
        guard try peek() == UInt8(ascii: ",") else {
            throw syntax("expected ',' or '\(Character(Unicode.Scalar(closing)))'")
        }
        position += 1
    }

    /// Starts an object; iterate its members with ``nextKey()``.
    mutating func beginObject() throws(JSONReadError) {
        guard try peek() == UInt8(ascii: "{") else {
            throw shape("is not an object")
        }
        try enter()
    }

    /// The next member's key, or `nil` after the closing brace.
    mutating func nextKey() throws(JSONReadError) -> String? {
        if try peek() == UInt8(ascii: "}") {
            leave()
            return nil
        }
        try separator(closing: UInt8(ascii: "}"))
        guard try peek() == UInt8(ascii: "\"") else { throw syntax("expected a quoted key") }
        let key = try rawString()
        try expect(UInt8(ascii: ":"))
        return key
    }

    /// Starts an array; iterate its elements with ``nextElement()``.
    mutating func beginArray() throws(JSONReadError) {
        guard try peek() == UInt8(ascii: "[") else {
            throw shape("is not an array")
        }
        try enter()
    }

    /// Whether another element follows (consumes the separator or the closing bracket).
    mutating func nextElement() throws(JSONReadError) -> Bool {
        if try peek() == UInt8(ascii: "]") {
            leave()
            return false
        }
        try separator(closing: UInt8(ascii: "]"))
        return true
    }

    /// Reads an array, calling `element` for each item with `[index]` on the path.
    mutating func readArray<T>(_ element: (inout JSONReader) throws(JSONReadError) -> T) throws(JSONReadError) -> [T] {
        try beginArray()
        var result: [T] = []
        var index = 0
        while try nextElement() {
            path.append("[\(index)]")
            result.append(try element(&self))
            path.removeLast()
            index += 1
        }
        return result
    }

    /// Reads a member value with its key on the path.
    mutating func member<T>(
        _ key: String, _ read: (inout JSONReader) throws(JSONReadError) -> T
    ) throws(JSONReadError) -> T {
        path.append(key)
        let value = try read(&self)
        path.removeLast()
        return value
    }

    // MARK: Scalars

    mutating func readString() throws(JSONReadError) -> String {
        guard try peek() == UInt8(ascii: "\"") else { throw shape("is not a string") }
        return try rawString()
    }

    private mutating func rawString() throws(JSONReadError) -> String {
        position += 1  // opening quote
        let start = position
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
                position += 1
                return text
            }
            if byte == UInt8(ascii: "\\") {
                return try escapedString(from: start)
            }
            if byte < 0x20 {
                throw syntax("control character in a string")
            }
            position += 1
        }
        throw syntax("unterminated string")
    }

    private mutating func escapedString(from start: Int) throws(JSONReadError) -> String {
        var utf8 = Array(bytes[start..<position])
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard position < bytes.count else { throw syntax("unterminated string") }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar), position + 1 < bytes.count,
                        bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u")
                    {
                        position += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw syntax("invalid surrogate pair") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    let character = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                    utf8.append(contentsOf: String(character).utf8)
                default:
                    throw syntax("invalid escape")
                }
            default:
                if byte < 0x20 { throw syntax("control character in a string") }
                utf8.append(byte)
            }
        }
        throw syntax("unterminated string")
    }

    private mutating func hex4() throws(JSONReadError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw syntax("unterminated string") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
            default: throw syntax("invalid \\u escape")
            }
            value = value << 4 | digit
            position += 1
        }
        return value
    }

    /// The raw text of the next number.
    private mutating func numberToken() throws(JSONReadError) -> UnsafeBufferPointer<UInt8>? {
        let first = try peek()
        guard first == UInt8(ascii: "-") || (first >= 0x30 && first <= 0x39) else { return nil }
        let start = position
        while position < bytes.count {
            switch bytes[position] {
            case 0x30...0x39, UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."), UInt8(ascii: "e"),
                UInt8(ascii: "E"):
                position += 1
            default:
                return UnsafeBufferPointer(rebasing: bytes[start..<position])
            }
        }
        return UnsafeBufferPointer(rebasing: bytes[start..<position])
    }

    mutating func readInt() throws(JSONReadError) -> Int {
        let (negative, magnitude) = try readInteger()
        if negative {
            guard magnitude <= UInt64(Int.max) + 1 else { throw shape("is out of range") }
            return magnitude == UInt64(Int.max) + 1 ? Int.min : -Int(magnitude)
        }
        guard magnitude <= UInt64(Int.max) else { throw shape("is out of range") }
        return Int(magnitude)
    }

    mutating func readUInt64() throws(JSONReadError) -> UInt64 {
        let (negative, magnitude) = try readInteger()
        guard !negative || magnitude == 0 else { throw shape("is negative") }
        return magnitude
    }

    /// An integer token, parsed digit by digit (64-bit ids do not fit a Double exactly).
    private mutating func readInteger() throws(JSONReadError) -> (negative: Bool, magnitude: UInt64) {
        guard let token = try numberToken() else { throw shape("is not a number") }
        var negative = false
        var value: UInt64 = 0
        for (index, byte) in token.enumerated() {
            if index == 0 && byte == UInt8(ascii: "-") {
                negative = true
                continue
            }
            guard byte >= 0x30 && byte <= 0x39 else { throw shape("is not a whole number") }
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(UInt64(byte - 0x30))
            if overflow1 || overflow2 { throw shape("is out of range") }
            value = sum
        }
        guard token.count > (negative ? 1 : 0) else { throw syntax("invalid number") }
        return (negative, value)
    }

    mutating func readDouble() throws(JSONReadError) -> Double {
        guard let token = try numberToken() else { throw shape("is not a number") }
        guard let value = Double(String(decoding: token, as: UTF8.self)) else { throw syntax("invalid number") }
        return value
    }

    mutating func readBool() throws(JSONReadError) -> Bool {
        switch try peek() {
        case UInt8(ascii: "t"):
            try literal("true")
            return true
        case UInt8(ascii: "f"):
            try literal("false")
            return false
        default:
            throw shape("is not a boolean")
        }
    }

    /// Skips any value (unknown members stay readable by newer readers).
    mutating func skipValue() throws(JSONReadError) {
        switch try peek() {
        case UInt8(ascii: "{"):
            try beginObject()
            while try nextKey() != nil {
                try skipValue()
            }
        case UInt8(ascii: "["):
            try beginArray()
            while try nextElement() {
                try skipValue()
            }
        case UInt8(ascii: "\""):
            _ = try rawString()
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            _ = try readBool()
        case UInt8(ascii: "n"):
            try literal("null")
        default:
            guard try numberToken() != nil else { throw syntax("unexpected character") }
        }
    }
}
