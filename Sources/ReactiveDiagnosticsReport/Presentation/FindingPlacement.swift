/// Where a finding is placed in the source: the one rule the failed test, `show`, the HTML page,
/// SARIF, JUnit and the GitHub annotations all follow, so a finding points at the same line
/// everywhere.
///
/// The culprit is the first user frame with a source line among the first
/// ``userFramesTried`` user frames of the allocation stack, then of the event stack, then of
/// the related stack. Without any line, the finding is still placed at a frame: the first
/// user frame of its primary stack (else the first frame that is not the runtime's).
///
/// ```swift
/// let index = Dictionary(uniqueKeysWithValues: report.stacks.map { ($0.id, $0) })
/// if let culprit = FindingPlacement.culprit(of: finding, stacks: { index[$0] }) {
///     print(culprit.frame.file ?? "?", culprit.frame.line ?? 0)
/// }
/// ```
public enum FindingPlacement {
    /// How many user frames of a stack are tried for a source line.
    public static let userFramesTried = 4

    /// A frame a finding points at.
    public struct Place: Sendable, Equatable {
        /// The role of the stack the frame is in.
        public var role: StackRole
        /// The stack's id in the report.
        public var stack: Int
        /// The frame's position in the stack (0 innermost).
        public var index: Int
        /// The frame.
        public var frame: ReportFrame
    }

    /// The culprit frame: the first user frame with a source line (see the type's rule), or
    /// `nil` when no frame tried has one.
    public static func culprit(of finding: ReportFinding, stacks: (Int) -> ReportStack?) -> Place? {
        for (role, id) in finding.stackReferences {
            guard let stack = stacks(id) else { continue }
            var tried = 0
            for (index, frame) in stack.frames.enumerated() where frame.category == .user {
                if frame.file != nil, let line = frame.line, line > 0 {
                    return Place(role: role, stack: id, index: index, frame: frame)
                }
                tried += 1
                if tried == userFramesTried { break }
            }
        }
        return nil
    }

    /// The culprit, else the frame that best says where without a line: the first user frame of
    /// the primary stack, else its first frame that is not the runtime's, else its first.
    public static func place(of finding: ReportFinding, stacks: (Int) -> ReportStack?) -> Place? {
        if let culprit = culprit(of: finding, stacks: stacks) { return culprit }
        for (role, id) in finding.stackReferences {
            guard let stack = stacks(id), let index = focusIndex(in: stack.frames) else { continue }
            return Place(role: role, stack: id, index: index, frame: stack.frames[index])
        }
        return nil
    }

    /// The frame of `frames` that best says where: the first user frame, else the first that is
    /// not the runtime's, else the first.
    public static func focusIndex(in frames: [ReportFrame]) -> Int? {
        frames.firstIndex { $0.category == .user } ?? frames.firstIndex { $0.category != .system }
            ?? (frames.isEmpty ? nil : 0)
    }
}

/// The part a stack plays in a finding.
///
/// ```swift
/// for (role, stack) in finding.stackReferences {
///     print(role.heading, stack)   // "allocated at 3", "event at 7"
/// }
/// ```
public enum StackRole: String, Sendable, Equatable, CaseIterable {
    /// Where the resource involved was allocated.
    case allocation
    /// Where the offending event happened.
    case event
    /// A second stack that explains it: the other thread of a concurrent delivery, or what
    /// ``ReportFinding/relatedStackRole`` names (where an iterated stream was created).
    case related
}

extension ReportFinding {
    /// The finding's stacks with their roles, in the order they explain it.
    public var stackReferences: [(role: StackRole, stack: Int)] {
        var references: [(role: StackRole, stack: Int)] = []
        if let allocationStack { references.append((.allocation, allocationStack)) }
        if let eventStack { references.append((.event, eventStack)) }
        if let relatedStack { references.append((.related, relatedStack)) }
        return references
    }

    /// The `details` key naming the part the related stack plays (`stream created`,
    /// `other iteration`), read by ``relatedStackRole``.
    public static let relatedStackRoleKey = "relatedStackRole"

    /// What the related stack is, when the finding names it (`stream created`, `sequence
    /// diagnosed`, `other iteration`); `nil` for the other thread's delivery.
    public var relatedStackRole: String? {
        details[Self.relatedStackRoleKey].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The thread the stack of `role` ran on: the event's thread, the other thread for the
    /// related stack, none for the allocation.
    public func thread(of role: StackRole) -> ReportThread? {
        switch role {
        case .allocation: return nil
        case .event: return thread
        case .related: return otherThread
        }
    }
}
