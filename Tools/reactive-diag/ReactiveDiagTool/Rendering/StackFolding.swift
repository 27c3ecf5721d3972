import ReactiveDiagnosticsReport

/// Decides how a stack is shown: the user's frames first-class and highlighted, runs of
/// framework, system and diagnostics frames folded into one line.
///
/// A stack without user frames shows its framework and diagnostics frames instead (so it
/// is never all folded) and folds only the runtime's. A run of one frame is shown, not
/// folded: a fold line would be no shorter.
///
/// ```swift
/// for line in StackFolding.lines(for: stack) {
///     if case .folded(let count, let categories, let modules) = line { print(count, categories, modules) }
/// }
/// ```
enum StackFolding {
    /// One line of a folded stack.
    enum Line: Equatable {
        /// The engine dropped this many of the library's own frames from the top.
        case dropped(Int)
        /// A frame shown; `highlighted` for the user's frames.
        case frame(FrameView, highlighted: Bool)
        /// Consecutive frames folded: how many, their categories and modules (first-seen order).
        case folded(count: Int, categories: [String], modules: [String])
    }

    /// The lines for `stack`. Linear in its frames.
    static func lines(for stack: StackView) -> [Line] {
        var lines: [Line] = []
        if stack.droppedFrames > 0 {
            lines.append(.dropped(stack.droppedFrames))
        }
        let hasUser = stack.hasUserFrames
        func isShown(_ frame: FrameView) -> Bool {
            if frame.category == FrameCategory.user.rawValue { return true }
            return !hasUser && frame.category != FrameCategory.system.rawValue
        }
        var run: [FrameView] = []
        func closeRun() {
            if run.count == 1 {
                lines.append(.frame(run[0], highlighted: false))
            } else if run.count > 1 {
                lines.append(.folded(count: run.count, categories: categories(of: run), modules: modules(of: run)))
            }
            run.removeAll()
        }
        for frame in stack.frames {
            if isShown(frame) {
                closeRun()
                lines.append(.frame(frame, highlighted: frame.category == FrameCategory.user.rawValue))
            } else {
                run.append(frame)
            }
        }
        closeRun()
        return lines
    }

    /// The text of a fold line: `⋯ 7 framework frames (OpenCombine, XCTest)`.
    static func foldText(count: Int, categories: [String], modules: [String]) -> String {
        let kinds = categories.count <= 1
            ? (categories.first ?? "other")
            : categories.dropLast().joined(separator: ", ") + " and " + categories[categories.count - 1]
        let shownModules = modules.prefix(4).joined(separator: ", ") + (modules.count > 4 ? ", …" : "")
        return "⋯ \(count) \(kinds) frame\(count == 1 ? "" : "s")" + (modules.isEmpty ? "" : " (\(shownModules))")
    }

    /// The text of the dropped-frames line.
    static func droppedText(_ count: Int) -> String {
        "⋯ \(count) ReactiveDiagnostics frame\(count == 1 ? "" : "s") dropped by the engine"
    }

    private static func categories(of frames: [FrameView]) -> [String] {
        let order = [FrameCategory.framework, .system, .diagnostics, .user].map(\.rawValue)
        let present = Set(frames.map(\.category))
        return order.filter(present.contains)
    }

    private static func modules(of frames: [FrameView]) -> [String] {
        var seen: Set<String> = []
        var names: [String] = []
        for frame in frames {
            if let name = frame.foldingName, seen.insert(name).inserted {
                names.append(name)
            }
        }
        return names
    }
}
