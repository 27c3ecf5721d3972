import Foundation

/// A closure's source position and parameter names, from its debug information: read by
/// ``LineTables`` where it can, else through `llvm-symbolizer` (the process's
/// ``SymbolizerSession``): a symbol query (`CODE image symbol` gives its start address and
/// line), then a frame query at that address (`FRAME` lists its parameters, captures last).
package struct ClosureSource: Sendable {
    package var file: String
    package var line: Int
    package var column: Int
    package var parameters: [String]?

    /// The closure `symbol` of `image`: from the image's own debug information where
    /// ``LineTables`` reads it with certainty (the same answer, without waiting for
    /// llvm-symbolizer to start), else through the process's ``SymbolizerSession``.
    package static func resolve(symbol: String, image: String, symbolizer: String) -> ClosureSource? {
        if let function = LineTables.shared.function(named: symbol, image: image) {
            return ClosureSource(
                file: function.file, line: function.declarationLine, column: function.column,
                parameters: function.names)
        }
        return resolve(symbol: symbol, image: image, session: .shared(symbolizer: symbolizer, image: image))
    }

    package static func resolve(symbol: String, image: String, session: SymbolizerSession) -> ClosureSource? {
        let image = SymbolizerSession.quoted(image)
        guard let location = session.query("CODE \(image) \(symbol)"),
            let entries = location["Loc"] as? [[String: Any]], let entry = entries.first,
            let file = entry["FileName"] as? String, !file.isEmpty, file != "??",
            let line = (entry["StartLine"] as? Int) ?? (entry["Line"] as? Int), line > 0
        else { return nil }
        var source = ClosureSource(file: file, line: line, column: entry["Column"] as? Int ?? 0, parameters: nil)
        if let start = entry["StartAddress"] as? String, !start.isEmpty,
            let frame = session.query("FRAME \(image) \(start)"),
            let variables = frame["Frame"] as? [[String: Any]]
        {
            source.parameters = variables.compactMap { $0["Name"] as? String }
        }
        return source
    }
}
