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
        let found = SymbolTables.shared.lookUp(lookup)
        if let found, found.hasTable {
            if let symbol = found.symbol {
                result.symbol = symbol
                result.symbolOffset = found.offset + 1
            }
        } else {
            // No table for the image (not an ELF file we can read, or no image at all): ask libunwind.
            withUnsafeTemporaryAllocation(of: CChar.self, capacity: 4096) { buffer in
                var offset: UInt = 0
                if rdiag_proc_name(lookup, buffer.baseAddress!, buffer.count, &offset) == 0 {
                    result.symbol = String(cString: buffer.baseAddress!)
                    result.symbolOffset = offset + 1
                }
            }
        }
        if let image = found?.image {
            result.imagePath = image.path
            result.imageOffset = address &- image.bias
            result.imageBuildID = image.buildID
        }
        result.function = result.symbol.map(Demangler.demangle)
        return result
    }

    /// Reads the function symbols of the image that maps `address` now (on its first lookup
    /// otherwise): about a millisecond for a large debug test binary, taken off the first
    /// finding's path when called ahead of it.
    package static func prepareImage(containing address: UInt) {
        _ = SymbolTables.shared.lookUp(address)
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
        SymbolTables.shared.image(of: address)
    }
}

/// The images of the process by address, and the function symbols of each, learnt as
/// addresses are looked up and kept for the life of the process (one table per image; images
/// are few): a frame is named by two binary searches, where libunwind's `unw_get_proc_name`
/// mapped the image's file and scanned its symbol table for each one (about 30% of a small
/// failing suite's time went there).
final class SymbolTables: @unchecked Sendable {
    static let shared = SymbolTables()

    private let lock = NSLock()
    private var segments = ImageSegments()
    /// By image path; `nil` for a file that could not be read as ELF.
    private var tables: [String: OpaquePointer?] = [:]

    /// The image mapping `address`, if any.
    func image(of address: UInt) -> ImageOfAddress? {
        lock.withLock { segments.image(of: address)?.image }
    }

    /// The symbol table of the image at `path`, read on its first use; `nil` for a file that
    /// could not be read as ELF. Under `lock`.
    private func table(of path: String) -> OpaquePointer? {
        if let known = tables[path] { return known }
        let table = rdiag_symbol_table_open(path)
        tables[path] = table
        return table
    }

    /// The address (of the file) of the function named `symbol` in the image at `path`.
    func fileAddress(of symbol: String, image path: String) -> UInt64? {
        lock.withLock {
            var address: UInt64 = 0
            guard let table = table(of: path), rdiag_symbol_table_find(table, symbol, &address) == 1 else { return nil }
            return address
        }
    }

    /// Whether the function containing `fileAddress` of the image at `path` may be an async
    /// function's resume point (``ResumeSymbol``): `true` when it cannot be told.
    func mayBeResumePoint(image path: String, fileAddress: UInt64) -> Bool {
        lock.withLock {
            var offset: UInt64 = 0
            guard let table = table(of: path) else { return true }
            guard let name = rdiag_symbol_table_lookup(table, fileAddress, &offset) else { return false }
            return ResumeSymbol.function(of: String(cString: name)) != nil
        }
    }

    /// The image mapping `address`, whether its symbol table could be read, and the function
    /// symbol containing `address` with the offset in it.
    func lookUp(_ address: UInt) -> (image: ImageOfAddress, hasTable: Bool, symbol: String?, offset: UInt)? {
        lock.withLock {
            guard let (image, fileAddress) = segments.image(of: address) else { return nil }
            guard let table = table(of: image.path) else { return (image, false, nil, 0) }
            var offset: UInt64 = 0
            guard let name = rdiag_symbol_table_lookup(table, UInt64(fileAddress), &offset) else {
                return (image, true, nil, 0)
            }
            return (image, true, String(cString: name), UInt(offset))
        }
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
