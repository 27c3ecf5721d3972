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

        public var presentedName: String { frame.readableFunction ?? frame.symbol ?? frame.address }
        public var presentedCategory: FrameCategory { frame.category }
        public var presentedLocation: String? { frame.sourceLocation }
        public var presentedModule: String? { frame.module }
        public var hasFunctionName: Bool { frame.function != nil }
        public var presentedImageName: String? { imagePath.map { $0.split(separator: "/").last.map(String.init) ?? $0 } }
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
