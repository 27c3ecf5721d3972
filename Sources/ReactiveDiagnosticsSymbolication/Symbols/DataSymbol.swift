import Foundation
import _ReactiveDiagnosticsProcess

/// The symbol of the data (a global or static variable) at an address, from the image's symbol
/// table through `llvm-symbolizer`'s data query (`DATA`).
///
/// ```swift
/// if let symbol = DataSymbol.lookUp(address, symbolizer: "/usr/bin/llvm-symbolizer") {
///     print(Demangler.demangle(symbol))   // "static App.Store.shared : App.Store"
/// }
/// ```
package enum DataSymbol {
    /// The mangled name of the variable whose storage contains `address`, when the symbol table
    /// says.
    package static func lookUp(_ address: UInt, symbolizer: String) -> String? {
        guard let image = ImageOfAddress.lookUp(address) else { return nil }
        let query = "DATA 0x" + String(address &- image.bias, radix: 16)
        guard
            let result = try? Subprocess.run(
                symbolizer, arguments: ["--obj=\(image.path)", "--output-style=JSON", query], timeout: 30),
            !result.crashed, result.status == 0,
            let json = try? JSONSerialization.jsonObject(with: result.standardOutput) as? [[String: Any]],
            let data = json.first?["Data"] as? [String: Any], let symbol = data["Name"] as? String, !symbol.isEmpty
        else { return nil }
        return symbol
    }
}
