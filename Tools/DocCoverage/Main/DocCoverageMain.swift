import DocCoverage
import Foundation

/// `doc-coverage <symbol-graph-directory>…`: fails (exit 1) when a public symbol has no
/// documentation comment. Each directory holds one module's symbol graphs and is named after the
/// module, as `swift package generate-documentation` leaves them in
/// `.build/<triple>/extracted-symbols/<package>/<Module>` (`Tools/docs.sh` runs it there). Each
/// undocumented symbol is one `file:line: error:` line; one summary line per module follows. All
/// of it goes to standard error.
@main
enum DocCoverageMain {
    static func main() {
        let directories = CommandLine.arguments.dropFirst()
        guard !directories.isEmpty, !directories.contains(where: { $0.hasPrefix("-") }) else {
            printError("usage: doc-coverage <symbol-graph-directory>…  (each named after its module)")
            exit(2)
        }
        var failed = false
        for directory in directories {
            let url = URL(fileURLWithPath: directory)
            let module = url.lastPathComponent
            let coverage: DocumentationCoverage
            do {
                coverage = DocumentationCoverage(module: module, graphs: try SymbolGraph.loadAll(in: url))
            } catch {
                printError("error: \(module): cannot read the symbol graphs in \(directory): \(error)")
                failed = true
                continue
            }
            // A directory with no symbol of its module is a wrong path, not a documented module.
            guard !coverage.entries.isEmpty else {
                printError("error: \(module): no public symbol of \(module) in \(directory)")
                failed = true
                continue
            }
            for entry in coverage.undocumented {
                let kind = entry.kind.replacingOccurrences(of: "swift.", with: "")
                let inheritedOnly = entry.status == .inherited ? " (only its protocol requirement's is inherited)" : ""
                printError(
                    "\(entry.file ?? module):\(entry.line ?? 0): error: public \(kind) '\(entry.path)' has no "
                        + "documentation comment (///) of its own\(inheritedOnly)")
            }
            printError("\(module): \(coverage.entries.count) public symbols, \(coverage.undocumented.count) undocumented")
            failed = failed || !coverage.undocumented.isEmpty
        }
        exit(failed ? 1 : 0)
    }

    static func printError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
