import CReactiveDiagnostics
import Foundation

/// The source lines of the process's images read from their DWARF line programs
/// (`line_table.c`), one table per image, opened on its first question and kept for the
/// process: what a failing test needs to be placed at its line, without waiting for
/// llvm-symbolizer to start. Its first answer for a large test binary takes 20–60 ms; opening an
/// image here reads its units' code ranges (a few milliseconds), a unit's line program is indexed
/// on the first lookup in its code, and a lookup then takes microseconds.
///
/// An answer is the line llvm-symbolizer's outermost frame gives (``LLVMSymbolizer`` keeps
/// that one): the line table's row, or the call site of the outermost inlined subroutine. Where
/// this reader cannot tell with certainty it answers `nil`, and ``SourceLineResolver`` asks
/// llvm-symbolizer.
///
/// ```swift
/// let location = LineTables.shared.location(image: "/path/MyTests.xctest", address: 0x1a2b3)
/// print(location?.line ?? 0)
/// ```
package final class LineTables: @unchecked Sendable {
    /// The process's tables.
    package static let shared = LineTables()

    private let lock = NSLock()
    private var tables: [String: OpaquePointer?] = [:]
    private var withoutDebugInformation: [String: Bool] = [:]

    package init() {}

    deinit {
        for case let table? in tables.values { rdiag_line_table_close(table) }
    }

    /// What the line table tells of one address.
    package enum Answer: Equatable, Sendable {
        /// Its line (file, line and column).
        case line(LLVMSymbolizer.Location)
        /// Its row has no line (code the compiler made, line 0): llvm-symbolizer gives the file
        /// alone (`file`), or nothing for `<compiler-generated>` (`nil`).
        case noLine(file: String?, column: Int?)
        /// This reader cannot tell: ask llvm-symbolizer.
        case unknown
    }

    /// The location of the instruction at `address` (relative to the image's load bias; a
    /// return address minus one for a frame), or `nil` when this reader cannot tell it.
    package func location(image: String, address: UInt64) -> LLVMSymbolizer.Location? {
        if case .line(let location) = answer(image: image, address: address) { return location }
        return nil
    }

    /// What the image's line table tells of the instruction at `address` (relative to the
    /// image's load bias; a return address minus one for a frame).
    package func answer(image: String, address: UInt64) -> Answer {
        guard let table = table(for: image) else { return .unknown }
        var line: UInt32 = 0
        var column: UInt32 = 0
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 4096) { buffer in
            let found = rdiag_line_table_lookup(table, address, buffer.baseAddress!, buffer.count, &line, &column)
            guard found == 1 || found == 2 else { return .unknown }
            let file = String(cString: buffer.baseAddress!)
            // llvm-symbolizer passes over a `<compiler-generated>` frame.
            let generated = file.hasSuffix("<compiler-generated>")
            if found == 2 {
                return .noLine(file: generated ? nil : file, column: generated || column == 0 ? nil : Int(column))
            }
            // An inner frame of its may have a line where the outermost is compiler-generated.
            guard !generated else { return .unknown }
            return .line(LLVMSymbolizer.Location(file: file, line: Int(line), column: column > 0 ? Int(column) : nil))
        }
    }

    /// The function named `symbol` in `image` as llvm-symbolizer tells it (``ClosureSource``'s
    /// `CODE` and `FRAME` queries): the line table's row at its start, its declaration line and
    /// the names of its variables and parameters in order; `nil` when this reader cannot tell.
    package func function(
        named symbol: String, image: String
    ) -> (file: String, line: Int, column: Int, declarationLine: Int, names: [String])? {
        guard let table = table(for: image), let address = SymbolTables.shared.fileAddress(of: symbol, image: image)
        else { return nil }
        var line: UInt32 = 0
        var column: UInt32 = 0
        var declaration: UInt32 = 0
        var count = 0
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 4096) { file in
            withUnsafeTemporaryAllocation(of: CChar.self, capacity: 16_384) { names in
                guard
                    rdiag_line_table_function(
                        table, address, file.baseAddress!, file.count, &line, &column, &declaration, names.baseAddress!,
                        names.count, &count) == 1
                else { return nil }
                var list: [String] = []
                var start = names.baseAddress!
                for _ in 0..<count {
                    let name = String(cString: start)
                    list.append(name)
                    start += name.utf8.count + 1
                }
                return (String(cString: file.baseAddress!), Int(line), Int(column), Int(declaration), list)
            }
        }
    }

    /// Whether nothing can tell a line of `image`: the file has no debug information and names
    /// none elsewhere, no separate debug file is installed for its build id, and no debuginfod
    /// server is configured. llvm-symbolizer then answers every address without a line (at most
    /// a file name taken from the symbol table's object-file entries), so it is not asked. Cached.
    ///
    /// ```swift
    /// LineTables.shared.hasNoDebugInformation(image: "/usr/lib/swift/linux/libXCTest.so")   // true
    /// ```
    package func hasNoDebugInformation(image: String, environment: [String: String]? = nil) -> Bool {
        if let known = lock.withLock({ withoutDebugInformation[image] }) { return known }
        // The process's environment is read here, once an image, not at every question.
        let debuginfod = (environment ?? ProcessInfo.processInfo.environment)["DEBUGINFOD_URLS"] ?? ""
        var none = rdiag_image_debug_information(image) == 0 && debuginfod.isEmpty
        if none, let id = ELFBuildID.read(path: image), id.count > 2 {
            let separate = "/usr/lib/debug/.build-id/\(id.prefix(2))/\(id.dropFirst(2)).debug"
            none = !FileManager.default.fileExists(atPath: separate)
        }
        lock.withLock { withoutDebugInformation[image] = none }
        return none
    }

    /// Whether `image` has line programs this reader can use.
    package func hasLines(image: String) -> Bool {
        table(for: image) != nil
    }

    private func table(for image: String) -> OpaquePointer? {
        lock.withLock {
            if let known = tables[image] { return known }
            let opened = rdiag_line_table_open(image)
            tables[image] = opened
            return opened
        }
    }
}
