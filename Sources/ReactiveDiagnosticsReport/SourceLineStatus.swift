/// Whether a report's frames carry their source lines, and why not when they do not.
///
/// Lines are resolved once, when the report is written (never while the tests run), for the
/// frames of every stack a finding or a live resource points at. A report written where no
/// symbolizer could run, from a build without debug information, or rebuilt from a crash
/// journal says so here; `reactive-diag symbolize` can fill the lines in later.
///
/// ```swift
/// if let lines = report.sourceLines, lines.state != .resolved {
///     print("file:line missing for \(lines.userFrames - lines.resolvedUserFrames) frames: \(lines.reason ?? "?")")
/// }
/// ```
public struct SourceLineStatus: Codable, Sendable, Equatable {
    /// How complete the lines are.
    public enum State: String, Codable, Sendable, Equatable, CaseIterable {
        /// Every user frame of the stacks findings and live sites point at has a file and line.
        case resolved
        /// Some do.
        case partial
        /// None does.
        case missing
    }

    /// How complete the lines are.
    public var state: State
    /// The user frames of the stacks findings and live sites point at (compiler glue such as
    /// thunks and protocol witnesses, which have no line of their own, not counted).
    public var userFrames: Int
    /// Those of them with a file and a line.
    public var resolvedUserFrames: Int
    /// What resolved them, for example `llvm-symbolizer (/usr/bin/llvm-symbolizer)`.
    public var resolver: String?
    /// Why lines are missing, when some are.
    public var reason: String?

    /// Creates a status.
    public init(state: State, userFrames: Int, resolvedUserFrames: Int, resolver: String? = nil, reason: String? = nil)
    {
        self.state = state
        self.userFrames = userFrames
        self.resolvedUserFrames = resolvedUserFrames
        self.resolver = resolver
        self.reason = reason
    }

    /// The status of `report`'s frames as they are, counted over the stacks its findings and
    /// live sites refer to; `reason` is kept only when some line is missing.
    public static func measure(_ report: DiagnosticsReport, resolver: String?, reason: String?) -> SourceLineStatus {
        let wanted = report.referencedStackIDs
        var total = 0
        var resolved = 0
        for stack in report.stacks where wanted.contains(stack.id) {
            for frame in stack.frames where frame.category == .user && !frame.isCompilerGlue {
                total += 1
                if frame.file != nil, let line = frame.line, line > 0 { resolved += 1 }
            }
        }
        let state: State = resolved == total ? .resolved : resolved == 0 ? .missing : .partial
        return SourceLineStatus(
            state: state, userFrames: total, resolvedUserFrames: resolved, resolver: resolver,
            reason: state == .resolved ? nil : reason ?? "the symbolizer knew no line for these frames")
    }
}

extension ReportFrame {
    /// Whether the frame is code the compiler wrote around the user's (a thunk, a partial-apply
    /// forwarder, a protocol witness, or a resume point of one of them): it has no source line
    /// of its own.
    public var isCompilerGlue: Bool {
        guard let function else { return false }
        let name = Self.readable(function)
        return name.contains("thunk") || name.hasPrefix("partial apply") || name.hasPrefix("merged ")
            || name.hasPrefix("protocol witness for ")
    }
}

extension DiagnosticsReport {
    /// The ids of the stacks that findings (allocation, event, related, their chains' stages)
    /// and live sites refer to.
    public var referencedStackIDs: Set<Int> {
        var ids: Set<Int> = []
        for finding in findings {
            ids.formUnion(finding.stackIDs)
        }
        for site in ledger.liveAtEnd {
            if let id = site.stack { ids.insert(id) }
        }
        return ids
    }
}
