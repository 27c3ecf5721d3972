import Foundation
import ReactiveDiagnosticsReport
import ReactiveDiagnosticsSymbolication
import _ReactiveDiagnosticsSupport

/// What a closure on a retain path is: its function (through the compiler's partial-apply
/// forwarder to the closure the user wrote), whose code it is, and, from its debug
/// information, where it is written and what its captures are called.
struct ClosureFacts: Sendable {
    /// The closure's own function, mangled (`nil` for a thunk or when no symbol was found).
    var implementation: String?
    /// Demangled and shortened: `closure #2 in NewsApp.FeedViewModel.refresh()`.
    var function: String
    var category: FrameCategory
    /// A reabstraction thunk or other compiler glue around another closure.
    var isGlue: Bool
    /// The image the function is in, for llvm-symbolizer.
    var image: String?
    var file: String?
    var line: Int?
    var column: Int?
    /// The closure's parameters and captures, in order, from the debug information (the
    /// captures are the last ones).
    var parameters: [String]?
    /// The text of `line` in `file`, trimmed, when the file could be read.
    var sourceText: String?

    /// The name of capture `index` of `count`, when the debug information lists them.
    func captureName(_ index: Int, of count: Int) -> String? {
        guard let parameters, count > 0, parameters.count >= count, index < count else { return nil }
        return parameters[parameters.count - count + index]
    }

    var report: ReportClosure {
        ReportClosure(
            function: function, file: file, line: line, column: column, category: category, sourceText: sourceText)
    }
}

/// Symbolizes closures' function pointers, cached for the life of the process: the symbol
/// (libunwind) at once, the source line and captures' names (llvm-symbolizer) on demand.
final class ClosureSymbols: Sendable {
    static let shared = ClosureSymbols()

    private let facts = LockedValue([UInt: ClosureFacts]())
    private let sources = LockedValue([String: ClosureSource?]())
    /// The lines of the source files closures were found in, read once each.
    private let sourceFiles = LockedValue([String: [Substring]?]())
    private let classifier: FrameClassifier

    init(classifier: FrameClassifier = .shared) {
        self.classifier = classifier
    }

    /// The closure whose function pointer is `function` (without its source line).
    func facts(of function: UInt) -> ClosureFacts {
        if let cached = facts.withLock({ $0[function] }) {
            return cached
        }
        let frame = ProcedureSymbol.lookUp(functionAt: function)
        var result = ClosureFacts(
            implementation: nil, function: frame.function ?? "a closure", category: .system, isGlue: false,
            image: frame.imagePath)
        if let symbol = frame.symbol, let demangled = frame.function {
            var implementation = symbol
            var name = demangled
            for prefix in ["partial apply forwarder for ", "partial apply for "] where name.hasPrefix(prefix) {
                name = String(name.dropFirst(prefix.count))
                implementation = Self.dropForwarderSuffix(symbol)
            }
            result.isGlue = FrameClassifier.isGlue(name)
            result.implementation = result.isGlue ? nil : implementation
            result.function = Self.shorten(name)
            let module = FrameClassifier.module(ofDemangled: name)
            result.category =
                result.isGlue
                ? .system : classifier.category(module: module, symbol: implementation, imagePath: frame.imagePath)
        }
        facts.withLock { $0[function] = result }
        return result
    }

    /// The facts of `function` with its source line and captures' names, when
    /// llvm-symbolizer and debug information are there.
    func resolved(_ function: UInt, resolver: SourceLineResolver = .shared) -> ClosureFacts {
        var result = facts(of: function)
        guard let implementation = result.implementation, let image = result.image else { return result }
        let key = image + "\u{0}" + implementation
        let source: ClosureSource?
        if let cached = sources.withLock({ $0[key] }) {
            source = cached
        } else {
            source = (resolver.symbolizer?.path).flatMap {
                ClosureSource.resolve(symbol: implementation, image: image, symbolizer: $0)
            }
            sources.withLock { $0[key] = source }
        }
        if let source {
            result.file = source.file
            result.line = source.line
            result.column = source.column
            result.parameters = source.parameters
            result.sourceText = text(ofLine: source.line, in: source.file)
        }
        return result
    }

    /// Line `line` (1-based) of `file`, trimmed: what `reactive-diag fix` checks the file it
    /// edits against. Read at a checkpoint, never per event; a file is read once.
    private func text(ofLine line: Int, in file: String) -> String? {
        guard line > 0, file.hasPrefix("/") else { return nil }
        let lines: [Substring]?
        if let cached = sourceFiles.withLock({ $0[file] }) {
            lines = cached
        } else {
            // A source file larger than 4 MiB is not one a closure line is checked in.
            let attributes = try? FileManager.default.attributesOfItem(atPath: file)
            let size = (attributes?[.size] as? NSNumber)?.intValue ?? 0
            let contents =
                size > 0 && size <= 4 << 20 ? (try? String(contentsOfFile: file, encoding: .utf8)) : nil
            lines = contents.map { $0.split(separator: "\n", omittingEmptySubsequences: false) }
            sourceFiles.withLock { $0[file] = lines }
        }
        guard let lines, line <= lines.count else { return nil }
        let text = lines[line - 1].trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }

    /// `$s…fU0_TA.12` → `$s…fU0_`: the closure a partial-apply forwarder calls.
    static func dropForwarderSuffix(_ symbol: String) -> String {
        var name = Substring(symbol)
        if let dot = name.lastIndex(of: "."), name[name.index(after: dot)...].allSatisfy(\.isNumber) {
            name = name[..<dot]
        }
        if name.hasSuffix("TA") {
            name = name.dropLast(2)
        }
        return String(name)
    }

    /// `closure #2 (Swift.Array<Swift.String>) -> () in NewsApp.FeedViewModel.refresh() -> ()`
    /// → `closure #2 in NewsApp.FeedViewModel.refresh()`.
    static func shorten(_ name: String) -> String {
        var text = name
        if text.hasPrefix("closure #") || text.hasPrefix("implicit closure #"),
            let open = text.firstIndex(of: "("), let inRange = text.range(of: ") in ") ?? text.range(of: " in ")
        {
            let label = text[..<open].trimmingCharacters(in: .whitespaces)
            let rest = text[inRange.upperBound...]
            text = label + " in " + rest
        }
        if let arrow = text.range(of: " -> ", options: .backwards),
            text[arrow.upperBound...].allSatisfy({ !$0.isWhitespace })
        {
            text = String(text[..<arrow.lowerBound])
        }
        return text
    }
}
