/// One member of a report object, declared once (in `ReportFields.swift`): its key (the model's
/// property of the same name), whether a report has it, and its value.
///
/// The tables are the one declaration of the report's fields. The single-pass writer and
/// reader (`JSON/ReportModel+JSONWriting.swift`, `JSON/ReportModel+JSONReading.swift`, and
/// `JSON/ReportStatistics+JSON*.swift` for the ledger's and schedulers' statistics) are
/// generated from them, straight-line code as fast as hand-written; a test regenerates both and
/// fails when either is stale (`UPDATE_GENERATED=1` rewrites them), and the schema test holds
/// `Docs/report.schema.json` and the `Codable` model to the same tables.
///
/// ```swift
/// extension ReportImage: ReportObject {
///     package static let fields: [ReportField] = [
///         .required("id", .int),
///         .required("path", .string),
///         .optional("buildID", .string),
///     ]
/// }
/// ```
package struct ReportField: Sendable {
    /// The member's name in the JSON, and the model's property.
    package let key: String
    /// Whether a report has it.
    package let presence: FieldPresence
    /// What it holds.
    package let value: FieldValue

    /// A member every report has; the reader refuses a report without it.
    package static func required(_ key: String, _ value: FieldValue) -> ReportField {
        ReportField(key: key, presence: .required, value: value)
    }

    /// A member that may be absent (a model optional: omitted when `nil`, as `Codable` does;
    /// JSON `null` reads as absent). `since` names the schema version from which the writer
    /// always writes it (the schema requires it; older reports lack it).
    package static func optional(_ key: String, _ value: FieldValue, since version: Int? = nil) -> ReportField {
        ReportField(key: key, presence: version.map(FieldPresence.sinceVersion) ?? .optional, value: value)
    }
}

/// Whether a report has a member.
package enum FieldPresence: Sendable, Equatable {
    /// Every report has it; the reader refuses a report without it.
    case required
    /// It may be absent.
    case optional
    /// The schema requires it from this version on; readers accept older reports without it.
    case sinceVersion(Int)
}

/// What a member holds: the model's Swift type and the JSON that stands for it.
package enum FieldValue: Sendable {
    /// `String`: a JSON string.
    case string
    /// `Int`: an integer.
    case int
    /// `Int32`: an integer that must fit 32 bits.
    case int32
    /// `UInt64`: a non-negative integer.
    case uint64
    /// `Double`: a number.
    case double
    /// `Bool`: `true` or `false`.
    case bool
    /// `Date`: an ISO 8601 string with milliseconds (``ReportDates``, the schema's `$defs/date`).
    case date
    /// `[String]`: an array of strings.
    case strings
    /// `[String: String]`: an object of string members, written in sorted key order.
    case stringMap
    /// A `String`-backed enumeration: one of its raw values.
    case oneOf(any ReportEnumeration.Type)
    /// An object with its own table.
    case object(any ReportObject.Type)
    /// An array of objects with their own table.
    case array(any ReportObject.Type)
}

/// A JSON object of the report: its members, in the order of the model's memberwise
/// initializer (the order the reader names a missing member in).
package protocol ReportObject: Sendable {
    /// The members.
    static var fields: [ReportField] { get }
}

/// A `String`-backed enumeration stored in the report.
package protocol ReportEnumeration: Sendable {
    /// Every raw value, in declaration order.
    static var rawValues: [String] { get }
}

extension ReportEnumeration where Self: RawRepresentable & CaseIterable, RawValue == String {
    package static var rawValues: [String] {
        allCases.map(\.rawValue)
    }
}
