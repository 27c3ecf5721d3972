/// How a stack is shown, everywhere a finding is shown (a failed test, `show`, the HTML page,
/// JUnit, the annotations): the user's frames first-class and highlighted, runs of framework,
/// system and diagnostics frames folded into one line.
///
/// A stack without user frames shows its framework and diagnostics frames instead (so it is
/// never all folded) and folds only the runtime's. A run of one frame is shown, not folded: a
/// fold line would be no shorter.
///
/// ```swift
/// let lines = StackFolding.lines(categories: stack.frames.map(\.category),
///                                foldingNames: stack.frames.map(\.module), droppedFrames: stack.droppedFrames)
/// for case .folded(let frames, _, let modules) in lines { print(frames.count, modules) }
/// ```
public enum StackFolding {
    /// One line of a folded stack.
    public enum Line: Equatable, Sendable {
        /// The engine dropped this many of the library's own frames from the top.
        case dropped(Int)
        /// The frame at `index` is shown; `highlighted` for the user's frames.
        case frame(index: Int, highlighted: Bool)
        /// Consecutive frames folded: their positions, categories and modules (first-seen order).
        case folded(frames: Range<Int>, categories: [FrameCategory], modules: [String])
    }

    /// The lines of a stack whose frames have `categories` and, for folding, `foldingNames`
    /// (the module, else the image's file name). Linear in the frames.
    public static func lines(categories: [FrameCategory], foldingNames: [String?], droppedFrames: Int) -> [Line] {
        var lines: [Line] = []
        if droppedFrames > 0 {
            lines.append(.dropped(droppedFrames))
        }
        let hasUser = categories.contains(.user)
        var run: [Int] = []
        func closeRun() {
            if run.count == 1 {
                lines.append(.frame(index: run[0], highlighted: false))
            } else if run.count > 1 {
                let present = Set(run.map { categories[$0] })
                let ordered = [FrameCategory.framework, .system, .diagnostics, .user].filter(present.contains)
                var seen: Set<String> = []
                var modules: [String] = []
                for index in run {
                    if let name = foldingNames[index], seen.insert(name).inserted { modules.append(name) }
                }
                lines.append(.folded(frames: run[0]..<(run[run.count - 1] + 1), categories: ordered, modules: modules))
            }
            run.removeAll()
        }
        for (index, category) in categories.enumerated() {
            if category == .user || (!hasUser && category != .system) {
                closeRun()
                lines.append(.frame(index: index, highlighted: category == .user))
            } else {
                run.append(index)
            }
        }
        closeRun()
        return lines
    }

    /// The text of a fold line: `⋯ 7 framework frames (OpenCombine, XCTest)`.
    public static func foldText(count: Int, categories: [FrameCategory], modules: [String]) -> String {
        let names = categories.map(\.rawValue)
        let kinds =
            names.count <= 1
            ? (names.first ?? "other")
            : names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1]
        let shownModules = modules.prefix(4).joined(separator: ", ") + (modules.count > 4 ? ", …" : "")
        return "⋯ \(count) \(kinds) frame\(count == 1 ? "" : "s")" + (modules.isEmpty ? "" : " (\(shownModules))")
    }

    /// The text of the dropped-frames line.
    public static func droppedText(_ count: Int) -> String {
        "⋯ \(count) ReactiveDiagnostics frame\(count == 1 ? "" : "s") dropped by the engine"
    }
}
