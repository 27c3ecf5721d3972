import Foundation

/// Short, one-line descriptions of Foundation and POSIX errors.
enum ErrorText {
    /// The most specific one-line text an error offers.
    static func describe(_ error: any Error) -> String {
        if let error = error as? ToolError {
            return error.message
        }
        if let error = error as? DecodingError {
            return describe(error)
        }
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError,
            underlying.domain == NSPOSIXErrorDomain, let code = POSIXErrorCode(rawValue: Int32(underlying.code))
        {
            return POSIXError(code).localizedDescription.lowercasedFirst
        }
        if nsError.domain == NSPOSIXErrorDomain, let code = POSIXErrorCode(rawValue: Int32(nsError.code)) {
            return POSIXError(code).localizedDescription.lowercasedFirst
        }
        if let detail = nsError.userInfo[NSDebugDescriptionErrorKey] as? String {
            return detail
        }
        return nsError.localizedDescription.replacingOccurrences(of: "\n", with: " ")
    }
}

extension ErrorText {
    /// `entries[0].fingerprint is not a String`, `missing field 'kind' in entries[2]`.
    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let components = context.codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }
            let joined = String(components.joined().drop(while: { $0 == "." }))
            return joined.isEmpty ? "the top level" : joined
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "missing field '\(key.stringValue)'" + (context.codingPath.isEmpty ? "" : " in \(path(context))")
        case .typeMismatch(let type, let context):
            return "\(path(context)) is not a \(type)"
        case .valueNotFound(let type, let context):
            return "\(path(context)) is null, expected a \(type)"
        case .dataCorrupted(let context):
            return "\(path(context)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}

extension String {
    /// The string with its first character lowercased (`"No such file"` → `"no such file"`).
    var lowercasedFirst: String {
        guard let first else { return self }
        return first.lowercased() + dropFirst()
    }
}
