import ReactiveDiagnostics

/// Carries a captured stack through RxSwift's `[String]` call-stack hooks: the last line
/// names the engine and the stack id, the lines before it (when asked for) are the frames
/// for a human.
enum SubscriptionStackMarker {
    private static let prefix = "ReactiveDiagnostics subscription stack "

    /// Captures the subscribing stack; with `readable`, symbolizes it too.
    static func capture(engine: DiagnosticsEngine, readable: Bool) -> [String] {
        let stack = engine.captureAllocationStack()
        var lines: [String] = []
        if readable, stack.isCaptured {
            lines = engine.symbolize(stack).frames.map(\.displayName)
        }
        lines.append("\(prefix)\(identity(of: engine)):\(stack.rawValue)")
        return lines
    }

    /// The stack a marker names (``StackID/none`` when it names another engine or none),
    /// and the lines without the marker.
    static func decode(_ lines: [String], engine: DiagnosticsEngine) -> (StackID, [String]) {
        guard let last = lines.last, last.hasPrefix(prefix) else {
            return (.none, lines)
        }
        let fields = last.dropFirst(prefix.count).split(separator: ":")
        let readable = Array(lines.dropLast())
        guard fields.count == 2, fields[0] == Substring(identity(of: engine)), let raw = UInt32(fields[1]) else {
            return (.none, readable)
        }
        return (StackID(rawValue: raw), readable)
    }

    private static func identity(of engine: DiagnosticsEngine) -> String {
        String(UInt(bitPattern: ObjectIdentifier(engine)), radix: 16)
    }
}
