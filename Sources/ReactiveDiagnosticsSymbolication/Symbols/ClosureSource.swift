import Foundation
import _ReactiveDiagnosticsProcess

/// A closure's source position and parameter names, from its debug information through
/// `llvm-symbolizer`: a symbol query (`SYMBOL` gives its start address and line), then a frame
/// query at that address (`FRAME` lists its parameters, captures last).
package struct ClosureSource: Sendable {
    package var file: String
    package var line: Int
    package var column: Int
    package var parameters: [String]?

    package static func resolve(symbol: String, image: String, symbolizer: String) -> ClosureSource? {
        guard let location = run(symbolizer, image: image, query: symbol)?.first,
            let entries = location["Loc"] as? [[String: Any]], let entry = entries.first,
            let file = entry["FileName"] as? String, !file.isEmpty, file != "??",
            let line = (entry["StartLine"] as? Int) ?? (entry["Line"] as? Int), line > 0
        else { return nil }
        var source = ClosureSource(file: file, line: line, column: entry["Column"] as? Int ?? 0, parameters: nil)
        if let start = entry["StartAddress"] as? String,
            let frame = run(symbolizer, image: image, query: "FRAME " + start)?.first,
            let variables = frame["Frame"] as? [[String: Any]]
        {
            source.parameters = variables.compactMap { $0["Name"] as? String }
        }
        return source
    }

    private static func run(_ executable: String, image: String, query: String) -> [[String: Any]]? {
        let arguments = ["--obj=\(image)", "--output-style=JSON", query]
        guard let result = try? Subprocess.run(executable, arguments: arguments, timeout: 30),
            !result.crashed, result.status == 0,
            let json = try? JSONSerialization.jsonObject(with: result.standardOutput) as? [[String: Any]]
        else { return nil }
        return json
    }
}
