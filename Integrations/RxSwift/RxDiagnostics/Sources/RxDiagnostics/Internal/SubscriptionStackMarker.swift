import ReactiveDiagnostics

/// Carries a subscription's stack and test through RxSwift's `[String]` call-stack hooks: the
/// last line names the engine, the stack id and the test, the lines before it (when asked
/// for) are the frames for a human.
struct SubscriptionStackMarker: Sendable {
    private static let prefix = "ReactiveDiagnostics subscription stack "

    /// This engine's marker prefix, made once.
    private let enginePrefix: String

    init(engine: DiagnosticsEngine) {
        enginePrefix = "\(Self.prefix)\(String(UInt(bitPattern: ObjectIdentifier(engine)), radix: 16)):"
    }

    /// The marker line of a subscription.
    @inline(__always)
    func line(stack: StackID, test: TestIdentity) -> String {
        enginePrefix + String(stack.rawValue) + ":" + String(test.rawValue)
    }

    /// The stack and test a marker names (``StackID/none`` and ``TestIdentity/none`` when it
    /// names another engine or there is none), and the lines without the marker.
    func decode(_ lines: [String]) -> (stack: StackID, test: TestIdentity, readable: [String]) {
        guard let last = lines.last, last.hasPrefix(Self.prefix) else {
            return (.none, .none, lines)
        }
        let readable = Array(lines.dropLast())
        guard last.hasPrefix(enginePrefix) else {
            return (.none, .none, readable)
        }
        let fields = last.dropFirst(enginePrefix.count).split(separator: ":")
        guard fields.count == 2, let stack = UInt32(fields[0]), let test = UInt32(fields[1]) else {
            return (.none, .none, readable)
        }
        return (StackID(rawValue: stack), TestIdentity(rawValue: test), readable)
    }
}
