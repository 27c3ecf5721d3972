import ReactiveDiagnosticsReport
import ReactiveDiagnosticsSymbolication

extension DiagnosticsEngine {
    /// The frame categories whose lines a report carries: the user's code and the frameworks
    /// built with it (the runtime and the system libraries have no line tables to read).
    static let resolvedCategories: Set<FrameCategory> = [.user, .framework]

    /// The source line of one frame, through the engine's resolver (cached), or `nil` when it
    /// cannot be told (no symbolizer, no debug information).
    package func sourceLine(of frame: SymbolizedFrame) -> SourceLine? {
        guard configuration.resolvesSourceLines, let image = frame.imagePath, let offset = frame.imageOffset,
            offset > 0,
            let location = sourceLineResolver.location(image: image, returnOffset: UInt64(offset)),
            let file = location.file, let line = location.line
        else { return nil }
        return SourceLine(file: file, line: line, column: location.column ?? 0)
    }

    /// Fills in the lines of the frames that `report`'s findings and live sites point at, once,
    /// when the report is written, and records how complete they are and why. `categories`
    /// narrows it: a failing test's message needs its user frames' lines only (its place), and
    /// the frameworks' images (libXCTest, each a symbolizer of its own to start) are left to the
    /// report.
    func resolveSourceLines(
        in report: inout DiagnosticsReport, categories: Set<FrameCategory> = DiagnosticsEngine.resolvedCategories
    ) {
        let resolver =
            configuration.resolvesSourceLines
            ? sourceLineResolver : SourceLineResolver(symbolizer: nil, unavailableReason: Self.turnedOff)
        let fill = report.fillSourceLines(
            with: resolver, stacks: report.referencedStackIDs, categories: categories, verifyBuildIDs: false)
        report.recordSourceLines(resolver: resolver, fill: fill)
    }

    static let turnedOff = "turned off by the configuration (resolvesSourceLines)"
}

extension DiagnosticsEngine {
    /// Whether this engine can resolve file:line (a symbolizer was found).
    package var resolvesSourceLines: Bool {
        sourceLineResolver.symbolizer != nil && configuration.resolvesSourceLines
    }
}
