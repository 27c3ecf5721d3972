import ReactiveDiagnosticsReport

/// One symbolized frame of a captured stack.
///
/// ```swift
/// for frame in engine.symbolize(finding.allocationStack).frames where frame.category == .user {
///     print(frame.displayName, frame.module ?? "?", frame.imageOffset.map { "+0x" + String($0, radix: 16) } ?? "")
/// }
/// ```
public struct SymbolizedFrame: Sendable, Hashable {
    /// The raw return address.
    public var address: UInt
    /// The absolute path of the image the address lies in.
    public var imagePath: String?
    /// The image's GNU build id, when it has one.
    public var imageBuildID: String?
    /// The address minus the image's load bias: the offset llvm-symbolizer expects.
    public var imageOffset: UInt?
    /// The mangled symbol.
    public var symbol: String?
    /// The demangled function name (the symbol itself when it is not mangled).
    public var function: String?
    /// The offset of the address from the start of the function.
    public var symbolOffset: UInt?
    /// The module the function belongs to, when its name tells.
    public var module: String?
    /// Whose code it is.
    public var category: FrameCategory

    /// A one-line description: `function + offset (module)` or `image + offset`.
    public var displayName: String {
        if let function {
            return ReportFrame.readable(function)
        }
        if let imagePath, let imageOffset {
            let image = imagePath.split(separator: "/").last.map(String.init) ?? imagePath
            return "\(image) + 0x\(String(imageOffset, radix: 16))"
        }
        return "0x\(String(address, radix: 16))"
    }
}

/// A symbolized stack with the library's own leading frames dropped.
///
/// ```swift
/// let stack = engine.symbolize(finding.allocationStack)
/// #expect(stack.contains(function: "FeedViewModel.refresh"))   // the leak was made in refresh()
/// print(stack.userFrames.first?.displayName ?? "no frame of the app")
/// ```
public struct SymbolizedStack: Sendable, Hashable {
    /// The stack's id.
    public var id: StackID
    /// Frames from the caller of ReactiveDiagnostics outwards.
    public var frames: [SymbolizedFrame]
    /// How many of the library's own frames were dropped from the top.
    public var droppedFrames: Int

    /// The frames that belong to the user's code.
    public var userFrames: [SymbolizedFrame] {
        frames.filter { $0.category == .user }
    }

    /// Whether any frame's demangled name contains `text`.
    public func contains(function text: String) -> Bool {
        frames.contains { $0.function?.contains(text) == true }
    }
}
