/// The mangling of an async function's resume partial functions: `…TQ<n>_` (await resume) and
/// `…TY<n>_` (suspend resume) after the function's own symbol.
///
/// ```swift
/// ResumeSymbol.function(of: "$s4Feed5ModelC6listenyyYaFTY0_")   // "$s4Feed5ModelC6listenyyYaF"
/// ResumeSymbol.function(of: "$s4Feed5ModelC6listenyyYaF")       // nil: not a resume point
/// ```
package enum ResumeSymbol {
    /// The symbol of the function a resume partial function belongs to, or `nil` when `symbol`
    /// is not one.
    package static func function(of symbol: String) -> Substring? {
        let utf8 = Substring(symbol).utf8
        guard utf8.last == UInt8(ascii: "_") else { return nil }
        let body = utf8.dropLast()
        let digits = body.reversed().prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }.count
        guard digits > 0 else { return nil }
        let marked = body.dropLast(digits)
        let marker = marked.suffix(2)
        guard marker.elementsEqual("TQ".utf8) || marker.elementsEqual("TY".utf8) else { return nil }
        return Substring(marked.dropLast(2))
    }
}
