public import ReactiveDiagnosticsReport

/// A stack as a view shows it: frames innermost first.
///
/// ```swift
/// let userFrames = stack.frames.filter { $0.category == "user" }
/// ```
public struct StackView: Codable, Sendable, Equatable {
    /// The stack's id in the report.
    public var id: Int
    /// How many of the library's own leading frames the engine dropped.
    public var droppedFrames: Int
    /// The frames, innermost first.
    public var frames: [FrameView]
    /// The stack as the shared presentation shows it (`FindingText`): frames shown and runs
    /// folded, in order. The HTML page renders these, so it folds as `show` does.
    public var lines: [StackLineView]

    /// The frame that best says where: the first user frame, else the first frame that is
    /// not the runtime's, else the first.
    var focusFrame: FrameView? {
        frames.first(where: { $0.category == FrameCategory.user.rawValue })
            ?? frames.first(where: { $0.category != FrameCategory.system.rawValue })
            ?? frames.first
    }

    /// Whether any frame is the user's.
    var hasUserFrames: Bool {
        frames.contains { $0.category == FrameCategory.user.rawValue }
    }
}

/// One line of a shown stack: a frame, or a fold of consecutive frames (or of the library's
/// own frames the engine dropped, `frames` empty).
///
/// ```swift
/// for line in stack.lines where line.kind == "fold" { print(line.text, line.frames) }
/// ```
public struct StackLineView: Codable, Sendable, Equatable {
    /// `frame` or `fold`.
    public var kind: String
    /// The fold's text, or the frame's head (`▸ #2 name`).
    public var text: String
    /// The positions of the frames on the line: one for a frame, the folded ones for a fold.
    public var frames: [Int]
    /// Whether the frame is the user's (highlighted).
    public var highlighted: Bool

    /// The lines of `frames` as `FindingText` shows them.
    static func lines(for frames: [FrameView], droppedFrames: Int) -> [StackLineView] {
        FindingText.lines(frames: frames, droppedFrames: droppedFrames, detail: .viewer).map { line in
            switch line {
            case .fold(let text, let range):
                return StackLineView(kind: "fold", text: text, frames: Array(range), highlighted: false)
            case .frame(let index, let head, let highlighted, _, _):
                return StackLineView(kind: "frame", text: head, frames: [index], highlighted: highlighted)
            }
        }
    }
}

/// One frame as a view shows it.
///
/// ```swift
/// print(frame.name, frame.file.map { "\($0):\(frame.line ?? 0)" } ?? "(no source location)")
/// ```
public struct FrameView: Codable, Sendable, Equatable {
    /// The position in the stack (0 innermost).
    public var index: Int
    /// What to call it: the demangled function, else the symbol, else the address.
    public var name: String
    /// The demangled function name, when known.
    public var function: String?
    /// The mangled symbol, when known.
    public var symbol: String?
    /// The module, when known.
    public var module: String?
    /// `user`, `framework`, `system` or `diagnostics`.
    public var category: String
    /// Source file, when resolved.
    public var file: String?
    /// Source line, when resolved.
    public var line: Int?
    /// Source column, when resolved.
    public var column: Int?
    /// The image's path, when known.
    public var image: String?
    /// The address relative to the image (what llvm-symbolizer takes).
    public var offset: String?
    /// The raw return address.
    public var address: String

    init(index: Int, frame: ReportFrame, image: ReportImage?) {
        self.index = index
        name = frame.readableFunction ?? frame.symbol ?? frame.address
        function = frame.function
        symbol = frame.symbol
        module = frame.module
        category = frame.category.rawValue
        file = frame.file
        line = frame.line
        column = frame.column
        self.image = image?.path
        offset = frame.offset
        address = frame.address
    }

    /// `file:line:column`, `file:line` or `file`; `nil` when the file is unknown.
    var sourceLocation: String? {
        guard let file else { return nil }
        guard let line, line > 0 else { return file }
        guard let column, column > 0 else { return "\(file):\(line)" }
        return "\(file):\(line):\(column)"
    }

    /// `name at file:line`, or the name alone.
    var oneLine: String {
        sourceLocation.map { "\(name) at \($0)" } ?? name
    }
}

extension FrameView: PresentableFrame {
    /// The name shown for the frame: the view's function name.
    public var presentedName: String { name }
    /// Whose code the frame is (user, framework, runtime or system), which decides its folding.
    public var presentedCategory: FrameCategory { FrameCategory(rawValue: category) ?? .system }
    /// The frame's `file:line:column`, when its source line is known.
    public var presentedLocation: String? { sourceLocation }
    /// The module the frame's function belongs to, when known.
    public var presentedModule: String? { module }
    /// Whether the frame's function was named by the symbolizer (an unnamed frame is shown by address).
    public var hasFunctionName: Bool { function != nil }
    /// The last path component of the binary the frame is in, when known.
    public var presentedImageName: String? {
        image.map { path in path.split(separator: "/").last.map(String.init) ?? path }
    }
    /// The frame's offset in its binary, when known.
    public var presentedOffset: String? { offset }
}
