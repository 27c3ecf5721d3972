extension JSONReader {
    /// Reads a member value with its key on the error path.
    mutating func field<T>(
        _ key: String, _ read: (inout JSONReader) throws(JSONReadError) -> T
    ) throws(JSONReadError) -> T {
        path.append(key)
        let value = try read(&self)
        path.removeLast()
        return value
    }

    /// `nil` for JSON `null`, otherwise the value.
    mutating func optional<T>(_ read: (inout JSONReader) throws(JSONReadError) -> T) throws(JSONReadError) -> T? {
        try readNull() ? nil : try read(&self)
    }

    mutating func readEnum<E: RawRepresentable & CaseIterable>(_ type: E.Type) throws(JSONReadError) -> E
    where E.RawValue == String {
        let text = try readString()
        guard let value = E(rawValue: text) else {
            let options = E.allCases.map(\.rawValue).joined(separator: ", ")
            throw shape("'\(text)' is not one of \(options)")
        }
        return value
    }

    mutating func readStrings() throws(JSONReadError) -> [String] {
        try readArray { (reader: inout JSONReader) throws(JSONReadError) in try reader.readString() }
    }

    mutating func readStringDictionary() throws(JSONReadError) -> [String: String] {
        var result: [String: String] = [:]
        try beginObject()
        while let key = try nextKey() {
            result[key] = try field(key) { (reader: inout JSONReader) throws(JSONReadError) in try reader.readString() }
        }
        return result
    }

    /// An integer that must fit 32 bits (a process id).
    mutating func readInt32() throws(JSONReadError) -> Int32 {
        guard let value = Int32(exactly: try readInt()) else { throw shape("is out of range") }
        return value
    }

    mutating func readDate() throws(JSONReadError) -> Date {
        let text = try readString()
        guard let date = ReportDates.parse(text) else { throw shape("'\(text)' is not an ISO 8601 date") }
        return date
    }

    /// Unwraps a required field.
    func required<T>(_ value: T?, _ name: String) throws(JSONReadError) -> T {
        guard let value else { throw missing(name) }
        return value
    }
}

import Foundation
