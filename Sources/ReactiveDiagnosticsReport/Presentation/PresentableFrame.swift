/// What a frame must tell to be shown: the shared presentation (``FindingText``) works on any
/// frame that does, the report's own (``ReportFrame`` with its image) and the tool's views alike.
///
/// ```swift
/// let frame = ReportFrame.Shown(frame: stack.frames[0], imagePath: "/app/AppTests.xctest")
/// print(frame.presentedName, frame.presentedLocation ?? "no line")
/// ```
public protocol PresentableFrame {
    /// What to call it: the readable function, else the symbol, else the address.
    var presentedName: String { get }
    /// Whose code it is.
    var presentedCategory: FrameCategory { get }
    /// `file:line:column`, `file:line` or `file`; `nil` when the file is unknown.
    var presentedLocation: String? { get }
    /// The module, when known.
    var presentedModule: String? { get }
    /// Whether the function's name is known.
    var hasFunctionName: Bool { get }
    /// The file name of the frame's binary, when known.
    var presentedImageName: String? { get }
    /// The address relative to the binary, when known.
    var presentedOffset: String? { get }
}

extension PresentableFrame {
    /// The name to give the frame when it is folded: the module, else the binary's file name.
    public var foldingName: String? {
        if let module = presentedModule, !module.isEmpty { return module }
        return presentedImageName
    }
}

extension ReportFrame {
    /// A report frame with the path of its binary, as the presentation shows it.
    public struct Shown: PresentableFrame, Sendable {
        /// The frame.
        public var frame: ReportFrame
        /// The absolute path of its binary, when known.
        public var imagePath: String?

        /// Wraps `frame` of the binary at `imagePath`.
        public init(frame: ReportFrame, imagePath: String?) {
            self.frame = frame
            self.imagePath = imagePath
        }

        /// The name shown for the frame: the readable function, else the raw symbol, else the address.
        public var presentedName: String { frame.readableFunction ?? frame.symbol ?? frame.address }
        /// Whose code the frame is (user, framework, runtime or system), which decides its folding.
        public var presentedCategory: FrameCategory { frame.category }
        /// The frame's `file:line:column`, when its source line is known.
        public var presentedLocation: String? { frame.sourceLocation }
        /// The module the frame's function belongs to, when known.
        public var presentedModule: String? { frame.module }
        /// Whether the frame's function was named by the symbolizer (an unnamed frame is shown by address).
        public var hasFunctionName: Bool { frame.function != nil }
        /// The last path component of the binary the frame is in, when known.
        public var presentedImageName: String? {
            imagePath.map { $0.split(separator: "/").last.map(String.init) ?? $0 }
        }
        /// The frame's offset in its binary, when known.
        public var presentedOffset: String? { frame.offset }
    }

    /// `file:line:column`, `file:line` or `file`; `nil` when the file is unknown.
    public var sourceLocation: String? {
        guard let file else { return nil }
        guard let line, line > 0 else { return file }
        guard let column, column > 0 else { return "\(file):\(line)" }
        return "\(file):\(line):\(column)"
    }
}
