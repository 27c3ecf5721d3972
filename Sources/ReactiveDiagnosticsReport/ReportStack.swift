import Foundation

/// An interned call stack, innermost frame first, with the library's own leading frames
/// already dropped, so frame 0 is the code that called into ReactiveDiagnostics.
///
/// ```swift
/// let stacks = Dictionary(uniqueKeysWithValues: report.stacks.map { ($0.id, $0) })
/// if let id = finding.allocationStack, let stack = stacks[id] {
///     let own = stack.frames.filter { $0.category == .user }
///     print(own.map { "\($0.function ?? $0.address) \($0.file ?? "?"):\($0.line ?? 0)" })
/// }
/// ```
public struct ReportStack: Codable, Sendable, Equatable {
    /// The id findings and live sites use to refer to this stack.
    public var id: Int
    /// The frames, innermost first.
    public var frames: [ReportFrame]
    /// How many of the library's own frames were dropped from the top.
    public var droppedFrames: Int

    /// Creates a stack.
    public init(id: Int, frames: [ReportFrame], droppedFrames: Int = 0) {
        self.id = id
        self.frames = frames
        self.droppedFrames = droppedFrames
    }
}

/// One frame of a stack.
///
/// ```swift
/// let firstOwn = stack.frames.first { $0.category == .user }
/// print(firstOwn?.function ?? "-", firstOwn?.file ?? "-", firstOwn?.line ?? 0)
/// ```
public struct ReportFrame: Codable, Sendable, Equatable {
    /// The raw return address in the process that wrote the report, as `0x…` hex.
    public var address: String
    /// The image (id into ``DiagnosticsReport/images``) the address belongs to.
    public var image: Int?
    /// The address relative to the image's load bias, as `0x…` hex: what
    /// `llvm-symbolizer --obj=IMAGE OFFSET` expects.
    public var offset: String?
    /// The mangled symbol name.
    public var symbol: String?
    /// The demangled function name.
    public var function: String?
    /// The module the function belongs to, when it can be told from its name.
    public var module: String?
    /// Whose code this is.
    public var category: FrameCategory
    /// Source file, when resolved (llvm-symbolizer).
    public var file: String?
    /// Source line, when resolved.
    public var line: Int?
    /// Source column, when resolved.
    public var column: Int?

    /// Creates a frame.
    public init(
        address: String, image: Int? = nil, offset: String? = nil, symbol: String? = nil,
        function: String? = nil, module: String? = nil, category: FrameCategory = .user,
        file: String? = nil, line: Int? = nil, column: Int? = nil
    ) {
        self.address = address
        self.image = image
        self.offset = offset
        self.symbol = symbol
        self.function = function
        self.module = module
        self.category = category
        self.file = file
        self.line = line
        self.column = column
    }
}

/// Whose code a frame is, which decides how viewers show it.
///
/// ```swift
/// let folded = stack.frames.filter { $0.category != .user }.count   // what viewers fold away
/// ```
public enum FrameCategory: String, Codable, Sendable, Equatable, CaseIterable {
    /// The user's own code: shown first and highlighted.
    case user
    /// A reactive or test framework (OpenCombine, RxSwift, XCTest, Testing…): folded.
    case framework
    /// The Swift runtime, Foundation, Dispatch, libc: folded.
    case system
    /// ReactiveDiagnostics itself, deeper in the stack (for example a diagnosed stage).
    case diagnostics
}

/// A binary image (executable or shared library) that frames belong to.
///
/// ```swift
/// let images = Dictionary(uniqueKeysWithValues: report.images.map { ($0.id, $0) })
/// if let id = frame.image, let image = images[id] {
///     print(image.path, image.buildID ?? "no build id")
/// }
/// ```
public struct ReportImage: Codable, Sendable, Equatable {
    /// The id frames use to refer to it.
    public var id: Int
    /// Absolute path of the image when the report was written.
    public var path: String
    /// The GNU build id, when the image has one: tells whether a binary on disk is the same.
    public var buildID: String?

    /// Creates an image record.
    public init(id: Int, path: String, buildID: String? = nil) {
        self.id = id
        self.path = path
        self.buildID = buildID
    }
}

extension ReportFrame {
    /// A demangled function name as people read it: the compiler's wrappers for the pieces of
    /// an async function (`(1) suspend resume partial function for …`) are removed, since the
    /// frame is in that function either way.
    ///
    /// ```swift
    /// ReportFrame.readable("(2) await resume partial function for Feed.load() async -> ()")  // "Feed.load() async -> ()"
    /// ```
    public static func readable(_ function: String) -> String {
        guard function.hasPrefix("(") else { return function }
        for marker in [") suspend resume partial function for ", ") await resume partial function for "] {
            if let range = function.range(of: marker),
                function[function.index(after: function.startIndex)..<range.lowerBound].allSatisfy(\.isNumber)
            {
                return String(function[range.upperBound...])
            }
        }
        return function
    }

    /// ``function`` made readable (see ``readable(_:)``).
    public var readableFunction: String? {
        function.map(Self.readable)
    }
}
