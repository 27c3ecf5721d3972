public import Foundation

extension DiagnosticsReport {
    /// The largest report ``load(from:maxBytes:)`` reads by default: 1 GiB.
    public static let defaultMaxBytes = 1 << 30

    /// The deepest JSON nesting a report may have. Real reports nest about 8 levels; the
    /// limit keeps hostile input (a file of `[[[[…`) from exhausting the parser's stack.
    public static let maximumNesting = 64

    /// Encodes the report as compact JSON with sorted keys (deterministic output).
    ///
    /// Compact output goes through a single-pass writer (reports can hold hundreds of
    /// thousands of findings); pretty output goes through `JSONEncoder`. Both produce the
    /// same document.
    public func encoded(prettyPrinted: Bool = false) throws -> Data {
        guard prettyPrinted else {
            var writer = JSONWriter(capacity: 4096 + findings.count * 512)
            write(to: &writer)
            return Data(writer.bytes)
        }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(ReportDates.format(date))
        }
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// Decodes and validates a report.
    ///
    /// - Parameters:
    ///   - data: The JSON bytes.
    ///   - source: A name for error messages, usually the file path.
    /// - Throws: ``ReportError`` naming `source` and what is wrong.
    public static func decode(_ data: Data, source: String) throws(ReportError) -> DiagnosticsReport {
        if data.isEmpty || data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            throw ReportError(source: source, reason: .empty)
        }
        let result: Result<DiagnosticsReport, ReportError> = data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            do throws(ReportError) {
                try checkVersion(bytes, source: source)
                var reader = JSONReader(bytes, maximumDepth: maximumNesting)
                let report: DiagnosticsReport
                do throws(JSONReadError) {
                    report = try read(&reader)
                    try reader.expectEnd()
                } catch {
                    throw ReportError(
                        source: source,
                        reason: error.kind == .syntax ? .malformed(error.message) : .invalid(error.message))
                }
                return .success(report)
            } catch {
                return .failure(error)
            }
        }
        let report = try result.get()
        if let problem = report.validationProblem() {
            throw ReportError(source: source, reason: .invalid(problem))
        }
        return report
    }

    /// A first, skimming pass: is this a JSON object with a `schemaVersion` we know? Runs
    /// before the full read so that a newer report gets "unsupported version", not a
    /// confusing complaint about a field.
    private static func checkVersion(_ bytes: UnsafeBufferPointer<UInt8>, source: String) throws(ReportError) {
        enum Probe {
            case notAnObject
            case versionNotANumber
            case duplicateVersion
            case version(Int?)
        }
        var reader = JSONReader(bytes, maximumDepth: maximumNesting)
        let probe: Probe
        do throws(JSONReadError) {
            probe = try skimVersion(&reader)
        } catch {
            throw ReportError(source: source, reason: .malformed(error.message))
        }
        func skimVersion(_ reader: inout JSONReader) throws(JSONReadError) -> Probe {
            do throws(JSONReadError) {
                try reader.beginObject()
            } catch  where error.kind == .shape {
                return .notAnObject
            }
            var version: Int?
            var numeric = true
            var seen = false
            while let key = try reader.nextKey() {
                if key == "schemaVersion" {
                    // Readers disagree on which of two equal keys wins: never guess a version.
                    if seen { return .duplicateVersion }
                    seen = true
                    let mark = reader.position
                    do throws(JSONReadError) {
                        version = try reader.readInt()
                    } catch  where error.kind == .shape {
                        numeric = false
                        reader.rewind(to: mark)
                        try reader.skipValue()
                    }
                } else {
                    try reader.skipValue()
                }
            }
            try reader.expectEnd()
            return numeric ? .version(version) : .versionNotANumber
        }
        switch probe {
        case .notAnObject:
            throw ReportError(source: source, reason: .notAReport("the top level is not a JSON object"))
        case .versionNotANumber:
            throw ReportError(source: source, reason: .notAReport("schemaVersion is not a number"))
        case .duplicateVersion:
            throw ReportError(source: source, reason: .notAReport("schemaVersion appears more than once"))
        case .version(nil):
            throw ReportError(source: source, reason: .notAReport("it has no schemaVersion field"))
        case .version(let version?) where !readableSchemaVersions.contains(version):
            throw ReportError(
                source: source, reason: .unsupportedVersion(found: version, supported: currentSchemaVersion))
        case .version:
            return
        }
    }

    /// Reads, decodes and validates the report at `url`.
    ///
    /// - Throws: ``ReportError`` for a missing, empty, oversized, malformed or
    ///   wrong-version file, with a one-line description naming it.
    public static func load(from url: URL, maxBytes: Int = defaultMaxBytes) throws(ReportError) -> DiagnosticsReport {
        let source = url.path
        let size: Int
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            size = (attributes[.size] as? NSNumber)?.intValue ?? 0
            if (attributes[.type] as? FileAttributeType) == .typeDirectory {
                throw ReportError(source: source, reason: .unreadable("it is a directory"))
            }
        } catch let error as ReportError {
            throw error
        } catch {
            throw ReportError(source: source, reason: .unreadable(Self.describe(error)))
        }
        if size > maxBytes {
            throw ReportError(source: source, reason: .tooLarge(bytes: size, limit: maxBytes))
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ReportError(source: source, reason: .unreadable(Self.describe(error)))
        }
        return try decode(data, source: source)
    }

    /// The first broken reference or out-of-range value, or `nil` when the report is consistent.
    public func validationProblem() -> String? {
        let stackIDs = Set(stacks.map(\.id))
        if stackIDs.count != stacks.count {
            return "two stacks share an id"
        }
        let imageIDs = Set(images.map(\.id))
        if imageIDs.count != images.count {
            return "two images share an id"
        }
        for stack in stacks {
            for frame in stack.frames {
                if let image = frame.image, !imageIDs.contains(image) {
                    return "stack \(stack.id) refers to image \(image), which is not in the report"
                }
            }
        }
        for finding in findings {
            if finding.kind.isEmpty {
                return "finding \(finding.id) has an empty kind"
            }
            for (name, stack) in [
                ("allocationStack", finding.allocationStack), ("eventStack", finding.eventStack),
                ("relatedStack", finding.relatedStack),
            ] {
                if let stack, !stackIDs.contains(stack) {
                    return "finding \(finding.id) refers to \(name) \(stack), which is not in the report"
                }
            }
            for (position, stage) in (finding.chain ?? []).enumerated() {
                if let stack = stage.allocationStack, !stackIDs.contains(stack) {
                    return
                        "finding \(finding.id) stage \(position) refers to stack \(stack), which is not in the report"
                }
            }
        }
        for stack in stacks {
            for (position, frame) in stack.frames.enumerated() {
                if let line = frame.line, line < 1 {
                    return "stack \(stack.id) frame \(position) has line \(line); lines start at 1"
                }
                if let column = frame.column, column < 0 {
                    return "stack \(stack.id) frame \(position) has a negative column"
                }
            }
        }
        if let lines = sourceLines,
            lines.userFrames < 0 || lines.resolvedUserFrames < 0
                || lines.resolvedUserFrames > lines.userFrames
        {
            return "sourceLines counts \(lines.resolvedUserFrames) resolved of \(lines.userFrames) user frames"
        }
        for site in ledger.liveAtEnd {
            if let stack = site.stack, !stackIDs.contains(stack) {
                return "a live \(site.kind) refers to stack \(stack), which is not in the report"
            }
            if site.count < 0 {
                return "a live \(site.kind) has a negative count"
            }
        }
        return nil
    }

    private static func describe(_ error: any Error) -> String {
        if let decoding = error as? DecodingError {
            func path(_ context: DecodingError.Context) -> String {
                let components = context.codingPath.map { key in
                    key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)"
                }
                let joined = components.joined()
                return joined.isEmpty ? "the top level" : String(joined.drop(while: { $0 == "." }))
            }
            switch decoding {
            case .keyNotFound(let key, let context):
                let at = path(context)
                return "missing field '\(key.stringValue)'" + (context.codingPath.isEmpty ? "" : " in \(at)")
            case .typeMismatch(let type, let context):
                return "\(path(context)) is not a \(type)"
            case .valueNotFound(let type, let context):
                return "\(path(context)) is null, expected a \(type)"
            case .dataCorrupted(let context):
                return "\(path(context)): \(context.debugDescription)"
            @unknown default:
                return "\(decoding)"
            }
        }
        let nsError = error as NSError
        if let detail = nsError.userInfo[NSDebugDescriptionErrorKey] as? String {
            return detail
        }
        return nsError.localizedDescription
    }
}

/// ISO 8601 dates with milliseconds, the format reports use.
///
/// Formatting and parsing work on whole milliseconds, so a date survives any number of
/// write/read cycles unchanged.
///
/// ```swift
/// let stamp = ReportDates.format(Date())            // "2026-11-25T04:07:21.123Z"
/// let date = ReportDates.parse(stamp)              // the same instant, to the millisecond
/// ```
public enum ReportDates {
    /// Formats a date as `2026-11-21T10:15:30.123Z` (UTC, rounded to the millisecond).
    public static func format(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        // Floor division, so dates before 1970 keep a positive fraction.
        let wholeSeconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        var seconds = time_t(wholeSeconds)
        let fraction = Int(milliseconds - wholeSeconds * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(fraction), 3))Z"
    }

    /// The date as it reads back from a report (whole milliseconds), so that a report built
    /// in memory equals the same report decoded.
    public static func normalized(_ date: Date) -> Date {
        Date(timeIntervalSince1970: Double(Int64((date.timeIntervalSince1970 * 1000).rounded())) / 1000)
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`; `nil` for anything else.
    public static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[start..<start + count] {
                guard byte >= 48 && byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        func byte(_ index: Int) -> UInt8? { index < bytes.count ? bytes[index] : nil }
        guard let year = number(0, 4), byte(4) == 45, let month = number(5, 2), byte(7) == 45,
            let day = number(8, 2), byte(10) == 84 || byte(10) == 116, let hour = number(11, 2), byte(13) == 58,
            let minute = number(14, 2), byte(16) == 58, let second = number(17, 2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var milliseconds = 0
        if byte(index) == 46 {
            index += 1
            var digits = 0
            while let next = byte(index), next >= 48 && next <= 57 {
                if digits < 3 { milliseconds = milliseconds * 10 + Int(next - 48) }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(digits, 3) { milliseconds *= 10 }
        }
        var offset = 0
        switch byte(index) {
        case 90, 122:
            index += 1
        case 43, 45:
            let sign = byte(index) == 45 ? -1 : 1
            guard let hours = number(index + 1, 2) else { return nil }
            var next = index + 3
            if byte(next) == 58 { next += 1 }
            guard let minutes = number(next, 2) else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
            index = next + 2
        default:
            return nil
        }
        guard index == bytes.count else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        let seconds = Int64(timegm(&parts)) - Int64(offset)
        return Date(timeIntervalSince1970: Double(seconds * 1000 + Int64(milliseconds)) / 1000)
    }
}
