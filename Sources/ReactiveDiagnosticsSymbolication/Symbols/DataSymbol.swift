import Foundation

/// The symbol of the data (a global or static variable) at an address, from the image's symbol
/// table through `llvm-symbolizer`'s data query (`DATA`, asked of the process's
/// ``SymbolizerSession``).
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
        let query = "DATA " + SymbolizerSession.quoted(image.path) + " 0x" + String(address &- image.bias, radix: 16)
        guard let answer = SymbolizerSession.shared(symbolizer: symbolizer, image: image.path).query(query),
            let data = answer["Data"] as? [String: Any], let symbol = data["Name"] as? String, !symbol.isEmpty
        else { return nil }
        return symbol
    }
}
