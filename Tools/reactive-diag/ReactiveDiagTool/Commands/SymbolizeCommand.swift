import ArgumentParser
import Foundation
import ReactiveDiagnosticsReport
import ReactiveDiagnosticsSymbolication

/// `reactive-diag symbolize REPORT -o FILE`: resolve a report's addresses offline.
struct SymbolizeCommand: ParsableCommand, ToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "symbolize",
        abstract: "Fill in file, line and column of every frame through llvm-symbolizer, offline.",
        discussion: """
            Each frame with an image and an offset is looked up in the image's binary (one \
            llvm-symbolizer process per binary), after checking that the binary's GNU build id matches \
            the report's. Frames without a function name also get the symbol and, when swift-demangle \
            is on PATH, the demangled name. Exits 2 when llvm-symbolizer cannot be found.
            """)

    @Argument(help: ArgumentHelp("The report to symbolize.", valueName: "report"))
    var report: String

    @Option(name: .shortAndLong, help: ArgumentHelp("Where to write the symbolized report.", valueName: "file"))
    var output: String

    @Option(
        name: .customLong("symbolizer"),
        help: ArgumentHelp(
            "The llvm-symbolizer to run (default: the one on PATH).", valueName: "path"))
    var symbolizer: String?

    @Option(
        name: .customLong("symbolizer-timeout"),
        help: ArgumentHelp(
            "Seconds llvm-symbolizer may take per binary.", valueName: "seconds"))
    var timeout: Double = 30

    @Option(
        name: .customLong("max-input-mb"),
        help: ArgumentHelp(
            "Refuse report files larger than this many MiB.", valueName: "MiB"))
    var maxInputMB = 1024

    @Flag(help: "Indent the JSON for people to read.")
    var pretty = false

    func validate() throws {
        guard timeout > 0 else { throw ValidationError("--symbolizer-timeout must be positive.") }
        guard maxInputMB > 0 else { throw ValidationError("--max-input-mb must be positive.") }
    }

    func execute(in context: ToolContext) throws -> Int32 {
        guard let url = try SymbolizationOptions.locate(explicit: symbolizer, in: context) else {
            throw ToolError(
                "llvm-symbolizer: not found on PATH; install LLVM (the Swift toolchain ships it) "
                    + "or pass --symbolizer PATH")
        }
        var (loaded, _) = try ReportInputs.load(
            [report], maxBytes: ReportInputs.bytes(mebibytes: maxInputMB), in: context)
        let demangler =
            SymbolizerLocator.onPath("swift-demangle", environment: context.environment)
            ?? Self.sibling("swift-demangle", of: url)
        let resolver = SourceLineResolver(symbolizer: url, timeout: timeout)
        let fill = loaded.fillSourceLines(
            with: resolver, verifyBuildIDs: true, fillFunctions: true, demangler: demangler)
        fill.notes.forEach(context.note)
        // The output is a report of the current version, saying how complete its lines now are.
        loaded.schemaVersion = DiagnosticsReport.currentSchemaVersion
        loaded.recordSourceLines(resolver: resolver, fill: fill)
        try OutputFile.write(try loaded.encoded(prettyPrinted: pretty), to: output, in: context)
        context.stderr.write(
            "reactive-diag: resolved file:line for \(fill.resolvedFrames) of "
                + "\(Formatting.count(fill.candidateFrames, "frame")) in "
                + "\(Formatting.count(fill.images, "binary", "binaries")); wrote \(output)\n")
        return ExitStatus.success
    }

    private static func sibling(_ name: String, of url: URL) -> URL? {
        let candidate = url.deletingLastPathComponent().appendingPathComponent(name)
        return FileManager.default.isExecutableFile(atPath: candidate.path) ? candidate : nil
    }
}
