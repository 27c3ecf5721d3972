import DocCoverage
import Foundation

/// `doc-coverage`, the documentation checks of `Tools/docs.sh`. All output goes to standard error;
/// exit 1 when a check fails, 2 on a usage error.
///
///     doc-coverage symbols <symbol-graph-directory>…   each directory holds one module's symbol
///                                                      graphs and is named after the module
///     doc-coverage topics <Module.doccarchive>…        each module's landing page organises
///                                                      every top-level symbol in its topics
///     doc-coverage public-api <PublicAPI.md> <symbol-graph-directory>…
///                                                      the page names every public top-level
///                                                      declaration of each module, and no other
///
/// `symbols` prints one `file:line: error:` line per public symbol without its own `///` comment
/// (or top-level type without a ```` ```swift ```` example) and one summary line per module. `topics` names every group DocC had to add to a landing page
/// (such as "Structures") and the symbols in it.
@main
enum DocCoverageMain {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard let command = arguments.first, arguments.count > 1,
            !arguments.dropFirst().contains(where: { $0.hasPrefix("-") })
        else { usage() }
        let paths = Array(arguments.dropFirst())
        switch command {
        case "symbols": exit(checkSymbols(in: paths) ? 0 : 1)
        case "topics": exit(checkTopics(of: paths) ? 0 : 1)
        case "public-api" where paths.count > 1:
            exit(checkPublicAPI(page: paths[0], in: Array(paths.dropFirst())) ? 0 : 1)
        default: usage()
        }
    }

    static func usage() -> Never {
        printError(
            "usage: doc-coverage symbols <symbol-graph-directory>…  |  doc-coverage topics <Module.doccarchive>…  |  "
                + "doc-coverage public-api <PublicAPI.md> <symbol-graph-directory>…")
        exit(2)
    }

    static func checkSymbols(in directories: [String]) -> Bool {
        var passed = true
        for directory in directories {
            let url = URL(fileURLWithPath: directory)
            let module = url.lastPathComponent
            let coverage: DocumentationCoverage
            do {
                coverage = DocumentationCoverage(module: module, graphs: try SymbolGraph.loadAll(in: url))
            } catch {
                printError("error: \(module): cannot read the symbol graphs in \(directory): \(error)")
                passed = false
                continue
            }
            // A directory with no symbol of its module is a wrong path, not a documented module.
            guard !coverage.entries.isEmpty else {
                printError("error: \(module): no public symbol of \(module) in \(directory)")
                passed = false
                continue
            }
            for entry in coverage.undocumented {
                let kind = entry.kind.replacingOccurrences(of: "swift.", with: "")
                let problem =
                    switch entry.status {
                    case .withoutExample: "has no ```swift example in its documentation comment"
                    case .inherited:
                        "has no documentation comment (///) of its own (only its protocol requirement's is inherited)"
                    default: "has no documentation comment (///)"
                    }
                printError(
                    "\(relative(entry.file) ?? module):\(entry.line ?? 0): error: public \(kind) '\(entry.path)' \(problem)"
                )
            }
            let withoutExample = coverage.entries.filter { $0.status == .withoutExample }.count
            printError(
                "\(module): \(coverage.entries.count) public symbols, \(coverage.undocumented.count - withoutExample) "
                    + "undocumented, \(withoutExample) top-level types without an example")
            passed = passed && coverage.undocumented.isEmpty
        }
        return passed
    }

    static func checkPublicAPI(page: String, in directories: [String]) -> Bool {
        let document: PublicAPIDocument
        do {
            document = PublicAPIDocument(markdown: try String(contentsOfFile: page, encoding: .utf8))
        } catch {
            printError("error: cannot read \(page): \(error)")
            return false
        }
        var passed = true
        for directory in directories {
            let module = URL(fileURLWithPath: directory).lastPathComponent
            let graphs: [SymbolGraph]
            do {
                graphs = try SymbolGraph.loadAll(in: URL(fileURLWithPath: directory))
            } catch {
                printError("error: \(module): cannot read the symbol graphs in \(directory): \(error)")
                passed = false
                continue
            }
            let declared = PublicAPIDocument.topLevelAPI(module: module, graphs: graphs).declared
            guard !declared.isEmpty else {
                printError("error: \(module): no public top-level declaration of \(module) in \(directory)")
                passed = false
                continue
            }
            let problems = document.problems(module: module, graphs: graphs)
            for problem in problems { printError("\(page): error: \(problem)") }
            printError(
                "\(module): \(declared.count) public top-level declarations, "
                    + (problems.isEmpty ? "all named by \(page)" : "\(problems.count) difference(s) with \(page)"))
            passed = passed && problems.isEmpty
        }
        return passed
    }

    static func checkTopics(of archives: [String]) -> Bool {
        var passed = true
        for archive in archives {
            let topics: LandingPageTopics
            do {
                topics = try LandingPageTopics(archive: URL(fileURLWithPath: archive))
            } catch {
                printError("error: cannot read the landing page of \(archive): \(error)")
                passed = false
                continue
            }
            let catalog = "\(topics.module).docc/\(topics.module).md"
            if topics.groups.isEmpty {
                printError(
                    "error: \(topics.module): the landing page has no topics; give \(catalog) a '## Topics' section")
                passed = false
            }
            for group in topics.automatic {
                let names = group.identifiers.map { $0.split(separator: "/").last.map(String.init) ?? $0 }
                printError(
                    "error: \(topics.module): DocC listed these under its own '\(group.title ?? "?")' group, as no "
                        + "topic group of \(catalog) names them: \(names.joined(separator: ", "))")
                passed = false
            }
            if !topics.groups.isEmpty && topics.automatic.isEmpty {
                printError("\(topics.module): every top-level symbol placed in \(topics.groups.count) topic group(s)")
            }
        }
        return passed
    }

    /// `path` relative to the current directory when it lies inside it.
    static func relative(_ path: String?) -> String? {
        guard let path else { return nil }
        let current = FileManager.default.currentDirectoryPath + "/"
        return path.hasPrefix(current) ? String(path.dropFirst(current.count)) : path
    }

    static func printError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
