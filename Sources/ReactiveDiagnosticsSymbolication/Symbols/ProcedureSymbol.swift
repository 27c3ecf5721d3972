import CReactiveDiagnostics
import Foundation

/// What the process's own tables say about one code address: the enclosing function's symbol
/// (a libunwind cursor, which finds internal, private and closure symbols that `dladdr`
/// cannot), and the image that holds it. No debug information is read (that is
/// ``LLVMSymbolizer``'s part), so it is cheap enough to call for every frame of a report.
///
/// ```swift
/// let symbol = ProcedureSymbol.lookUp(returnAddress: address)
/// print(symbol.function ?? "?", symbol.imagePath ?? "?")
/// ```
package struct ProcedureSymbol: Sendable, Hashable {
    /// The mangled symbol of the enclosing function.
    package var symbol: String?
    /// `symbol` demangled.
    package var function: String?
    /// Bytes from the function's start to the address.
    package var symbolOffset: UInt?
    /// The image (executable or shared object) that maps the address.
    package var imagePath: String?
    /// The image's GNU build id, in hex.
    package var imageBuildID: String?
    /// The address relative to the image's load bias.
    package var imageOffset: UInt?

    /// Looks up a return address: the call instruction before it (`address - 1`), so that the
    /// lookup cannot fall in the next function.
    package static func lookUp(returnAddress address: UInt) -> ProcedureSymbol {
        let lookup = address > 0 ? address - 1 : address
        var result = ProcedureSymbol()
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 4096) { buffer in
            var offset: UInt = 0
            if rdiag_proc_name(lookup, buffer.baseAddress!, buffer.count, &offset) == 0 {
                result.symbol = String(cString: buffer.baseAddress!)
                result.symbolOffset = offset + 1
            }
        }
        if let image = ImageOfAddress.lookUp(lookup) {
            result.imagePath = image.path
            result.imageOffset = address &- image.bias
            result.imageBuildID = image.buildID
        }
        result.function = result.symbol.map(Demangler.demangle)
        return result
    }

    /// Looks up the function that starts at `address` (a function pointer, not a return
    /// address: it is looked up one byte in).
    package static func lookUp(functionAt address: UInt) -> ProcedureSymbol {
        lookUp(returnAddress: address &+ 2)
    }
}

/// The image that maps an address, with its load bias and GNU build id
/// (`dl_iterate_phdr`).
package struct ImageOfAddress: Sendable, Hashable {
    /// The image's path.
    package var path: String
    /// What was added to the image's addresses when it was loaded.
    package var bias: UInt
    /// The GNU build id in hex, when the image has one.
    package var buildID: String?

    /// The image mapping `address`, if any.
    package static func lookUp(_ address: UInt) -> ImageOfAddress? {
        ImageSegments.segment(of: address)?.image
    }
}

/// Demangles Swift and C++ symbols through the runtime's own demanglers.
///
/// ```swift
/// Demangler.demangle("$s4main3fooyyF")   // "main.foo() -> ()"
/// ```
package enum Demangler {
    /// The demangled form of `symbol`, or `symbol` itself when it is not mangled.
    package static func demangle(_ symbol: String) -> String {
        guard let pointer = rdiag_demangle(symbol) else {
            return symbol
        }
        defer { free(pointer) }
        return String(cString: pointer)
    }
}
