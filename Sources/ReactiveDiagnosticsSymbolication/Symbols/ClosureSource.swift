import Foundation

/// A closure's source position and parameter names, from its debug information through
/// `llvm-symbolizer` (the process's ``SymbolizerSession``): a symbol query (`CODE image
/// symbol` gives its start address and line), then a frame query at that address (`FRAME`
/// lists its parameters, captures last).
package struct ClosureSource: Sendable {
    package var file: String
    package var line: Int
    package var column: Int
    package var parameters: [String]?

    package static func resolve(symbol: String, image: String, symbolizer: String) -> ClosureSource? {
        resolve(symbol: symbol, image: image, session: .shared(symbolizer: symbolizer, image: image))
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
