import CReactiveDiagnostics
import Foundation
import ReactiveDiagnosticsSymbolication
import _ReactiveDiagnosticsProcess

/// Names the global or static variable at an address in an image's data, from the image's
/// symbol table through `llvm-symbolizer`'s data query (`DATA`), cached for the process.
final class GlobalSymbols: Sendable {
    static let shared = GlobalSymbols()

    /// A variable: its demangled name and declared type.
    struct Variable: Sendable, Hashable {
        var name: String
        var type: String?
    }

    private let cache = LockedValue([UInt: Variable?]())

    /// The variable whose storage contains `address`, when the symbol table says.
    func variable(at address: UInt, resolver: SourceLineResolver = .shared) -> Variable? {
        if let cached = cache.withLock({ $0[address] }) {
            return cached
        }
        let found = lookUp(address, symbolizer: resolver.symbolizer?.path)
        cache.withLock { $0[address] = found }
        return found
    }

    private func lookUp(_ address: UInt, symbolizer: String?) -> Variable? {
        guard let symbolizer else { return nil }
        var image: String?
        var bias: UInt = 0
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 4096) { path in
            withUnsafeTemporaryAllocation(of: CChar.self, capacity: 128) { build in
                if rdiag_image_for_address(address, path.baseAddress!, path.count, &bias, build.baseAddress!, build.count) == 0 {
                    image = String(cString: path.baseAddress!)
                }
            }
        }
        guard let image else { return nil }
        let query = "DATA 0x" + String(address &- bias, radix: 16)
        guard let result = try? Subprocess.run(
                  symbolizer, arguments: ["--obj=\(image)", "--output-style=JSON", query], timeout: 30),
              !result.crashed, result.status == 0,
              let json = try? JSONSerialization.jsonObject(with: result.standardOutput) as? [[String: Any]],
              let data = json.first?["Data"] as? [String: Any], let symbol = data["Name"] as? String, !symbol.isEmpty
        else { return nil }
        return Self.variable(fromSymbol: symbol)
    }

    /// `$s1g6keeperSayAA1MCGvp` → `g.keeper` of type `Swift.Array<g.M>`; a static property's
    /// name without the demangler's `static ` (`g.Scope.bag`).
    static func variable(fromSymbol symbol: String) -> Variable {
        var demangled = Substring(Demangler.demangle(symbol))
        if demangled.hasPrefix("static ") {
            demangled = demangled.dropFirst("static ".count)
        }
        guard let separator = demangled.range(of: " : ") else { return Variable(name: String(demangled), type: nil) }
        return Variable(
            name: String(demangled[..<separator.lowerBound]), type: String(demangled[separator.upperBound...]))
    }
}
