import Foundation
import ReactiveDiagnosticsSymbolication
import _ReactiveDiagnosticsSupport

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
        guard let symbolizer, let symbol = DataSymbol.lookUp(address, symbolizer: symbolizer) else { return nil }
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
