import Foundation
import _ReactiveDiagnosticsProcess

/// A position in a source file, read from a frame's debug line table.
package struct SourceLine: Hashable, Sendable {
    /// The absolute path of the source file.
    package var file: String
    /// The line, from 1.
    package var line: Int
    /// The column, from 1; 0 when the line table does not say.
    package var column: Int

    /// Creates a position.
    package init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }
}

/// Resolves frames to file:line with `llvm-symbolizer`, when one can be found, caching every
/// answer for the life of the process.
///
/// Symbolization runs only for findings that fail a test, never on the hot path. Without
/// `llvm-symbolizer` (or without debug information) ``resolve(_:)`` returns `nil` and the
/// caller falls back to a location of its own.
package final class SourceLineResolver: Sendable {
    /// The resolver the test glue uses.
    package static let shared = SourceLineResolver(symbolizer: findSymbolizer())

    /// The `llvm-symbolizer` executable, if one was found.
    package let symbolizerPath: String?

    private struct Key: Hashable {
        var image: String
        var offset: UInt
    }

    private let cache = LockedValue<[Key: SourceLine?]>([:])

    /// Creates a resolver that runs the symbolizer at `symbolizer` (none: never resolves).
    package init(symbolizer: String?) {
        symbolizerPath = symbolizer
    }

    /// The source line of a frame, or `nil` when it cannot be told.
    package func resolve(_ frame: SymbolizedFrame) -> SourceLine? {
        guard let symbolizerPath, let image = frame.imagePath, let offset = frame.imageOffset, offset > 0 else {
            return nil
        }
        let key = Key(image: image, offset: offset)
        if let cached = cache.withLock({ $0[key] }) {
            return cached
        }
        // A return address points after the call: ask for the call instruction itself.
        let resolved = Self.run(symbolizerPath, image: image, address: offset - 1)
        cache.withLock { $0[key] = resolved }
        return resolved
    }

    /// The last source line of `frame`'s function that ran before `frame`'s call: the line of
    /// the call itself, or, when the compiler made the call (a cleanup at the end of a scope,
    /// which debug information places at line 0), the line of the code just before it. Looks
    /// back at most `limit` bytes, never before `floor` (an earlier return address in the same
    /// image). `nil` when it cannot be told.
    package func lastLine(before frame: SymbolizedFrame, notBefore floor: UInt = 0, limit: UInt = 1024) -> SourceLine? {
        guard let symbolizerPath, let image = frame.imagePath, let offset = frame.imageOffset, offset > 1 else {
            return nil
        }
        let lowest = max(floor, offset > limit ? offset - limit : 1)
        guard lowest < offset else { return nil }
        let addresses = stride(from: offset - 1, through: lowest, by: -1).map { "0x" + String($0, radix: 16) }
        let arguments = ["--obj=\(image)", "--functions=none"] + addresses
        guard let result = try? Subprocess.run(symbolizerPath, arguments: arguments, timeout: 30),
              !result.crashed, result.status == 0
        else { return nil }
        // One block per address, in order, separated by an empty line.
        let blocks = String(decoding: result.standardOutput, as: UTF8.self).components(separatedBy: "\n\n")
        return blocks.lazy.compactMap(Self.parse).first
    }

    /// `llvm-symbolizer` beside the `swift` found on `PATH` (the toolchain that built the
    /// tests), else the first one on `PATH`.
    package static func findSymbolizer(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        let directories = (environment["PATH"] ?? "").split(separator: ":").map(String.init)
        let files = FileManager.default
        var candidates: [String] = []
        if let swift = directories.map({ $0 + "/swift" }).first(where: files.isExecutableFile(atPath:)) {
            let real = URL(fileURLWithPath: swift).resolvingSymlinksInPath().deletingLastPathComponent()
            candidates.append(real.appendingPathComponent("llvm-symbolizer").path)
        }
        candidates += directories.map { $0 + "/llvm-symbolizer" }
        return candidates.first(where: files.isExecutableFile(atPath:))
    }

    /// Parses `llvm-symbolizer --functions=none` output: one `file:line:column` line per
    /// inlined frame, innermost first. The outermost known location is the one in the frame's
    /// own function, which is the user's line when the frame is a user frame.
    package static func parse(_ output: String) -> SourceLine? {
        var found: SourceLine?
        for text in output.split(separator: "\n") {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count >= 3, let line = Int(parts[parts.count - 2]), let column = Int(parts[parts.count - 1]),
                  line > 0
            else { continue }
            let file = parts[..<(parts.count - 2)].joined(separator: ":")
            if file.isEmpty || file == "??" { continue }
            found = SourceLine(file: file, line: line, column: column)
        }
        return found
    }

    private static func run(_ executable: String, image: String, address: UInt) -> SourceLine? {
        let arguments = ["--obj=\(image)", "--functions=none", "0x" + String(address, radix: 16)]
        guard let result = try? Subprocess.run(executable, arguments: arguments, timeout: 30),
              !result.crashed, result.status == 0
        else { return nil }
        return parse(String(decoding: result.standardOutput, as: UTF8.self))
    }
}
