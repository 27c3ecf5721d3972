/// The one presentation of a finding as text: how a failed test's message and `reactive-diag`
/// (`show`, JUnit, the annotations) show its stacks, frames and threads, so a finding reads the
/// same in a failed test and in the viewer.
///
/// The same folding, headings and wording everywhere; the two levels of ``Detail`` differ only in
/// what the place shows anyway: a failed test is already placed at its line, so its frames are
/// named only; the viewer numbers them, gives each its line and says how many of the library's
/// own frames were dropped.
///
/// ```swift
/// let text = FindingText.describe(finding, stack: { index[$0] }, imagePath: { images[$0]?.path })
/// print(text)
/// // leakedSubscription [error]: subscription 'refresh' still alive at the end of the test: …
/// //   test: FeedTests.testRefresh()
/// //   allocated at:
/// //     ⋯ 3 framework frames (OpenCombine)
/// //     Feed.FeedViewModel.refresh() -> ()
/// //     ⋯ 9 framework and system frames (XCTest, Foundation, libc.so.6)
/// //   fingerprint 3f9a0c1e2b7d4a55
/// ```
public enum FindingText {
    /// How much a frame line says.
    public enum Detail: Sendable {
        /// A failed test's message: frame names only (the failure is placed at the line).
        case failure
        /// A viewer (`show`, JUnit, the annotations): `▸ #index name at file:line`, the dropped
        /// frames counted.
        case viewer
    }

    /// One line of a shown stack, in parts a renderer may style.
    public enum StackLine: Equatable, Sendable {
        /// The library's own frames the engine dropped (`frames` empty), or a folded run of the
        /// frames at `frames`: shown dimmed.
        case fold(String, frames: Range<Int>)
        /// The frame at `index`: `head` (`▸ #2 name` for the user's, `  #1 name` for others), its source
        /// location, or the binary and offset when it has neither location nor name.
        case frame(index: Int, head: String, highlighted: Bool, location: String?, binary: String?)

        /// The line without styling (a fold indented like a frame's name).
        public var plain: String {
            switch self {
            case .fold(let text, _): return text
            case .frame(_, let head, _, let location, let binary):
                return head + (location.map { " at \($0)" } ?? "") + (binary.map { " (\($0))" } ?? "")
            }
        }
    }

    /// The lines of a stack: folding (``StackFolding``) and each frame's text.
    public static func lines<Frame: PresentableFrame>(
        frames: [Frame], droppedFrames: Int, detail: Detail = .viewer
    ) -> [StackLine] {
        let folded = StackFolding.lines(
            categories: frames.map(\.presentedCategory), foldingNames: frames.map(\.foldingName),
            droppedFrames: detail == .viewer ? droppedFrames : 0)
        return folded.map { line in
            switch line {
            case .dropped(let count):
                return .fold(StackFolding.droppedText(count), frames: 0..<0)
            case .folded(let range, let categories, let modules):
                return .fold(
                    StackFolding.foldText(count: range.count, categories: categories, modules: modules), frames: range)
            case .frame(let index, let highlighted):
                let frame = frames[index]
                var binary: String?
                if frame.presentedLocation == nil || detail == .failure, let image = frame.presentedImageName,
                    frame.presentedModule == nil || !frame.hasFunctionName
                {
                    binary = image + (frame.presentedOffset.map { " +\($0)" } ?? "")
                }
                switch detail {
                case .failure:
                    return .frame(
                        index: index, head: frame.presentedName, highlighted: highlighted, location: nil, binary: binary
                    )
                case .viewer:
                    let head = (highlighted ? "▸ " : "  ") + "#\(index) \(frame.presentedName)"
                    return .frame(
                        index: index, head: head, highlighted: highlighted, location: frame.presentedLocation,
                        binary: binary)
                }
            }
        }
    }

    /// `thread 1234 "worker" on queue "feed", main queue`.
    public static func thread(_ thread: ReportThread) -> String {
        var text = "thread \(thread.id)"
        if let name = thread.name, !name.isEmpty { text += " \"\(name)\"" }
        if let queue = thread.queue, !queue.isEmpty { text += " on queue \"\(queue)\"" }
        if thread.isMainQueue { text += ", main queue" }
        return text
    }

    /// `allocated at`, `event at (thread 1234 "worker")`, `other delivery at (…)`: the generic
    /// heading of a stack of `role` (``stackHeading(_:of:)`` gives a finding's own).
    public static func stackHeading(_ role: StackRole, thread: ReportThread?) -> String {
        role.heading + (thread.map { " (\(Self.thread($0)))" } ?? "")
    }

    /// How `finding` introduces its stack of `role`, with the thread it ran on: `allocated at`,
    /// `event at (thread 1234 "worker")`, and for the related stack the part it plays
    /// (``ReportFinding/relatedStackRole``: `stream created at`, `other iteration at`), else
    /// `other delivery at (…)`.
    public static func stackHeading(_ role: StackRole, of finding: ReportFinding) -> String {
        var heading = role.heading
        if role == .related, let named = finding.relatedStackRole {
            heading = named + " at"
        }
        return heading + (finding.thread(of: role).map { " (\(Self.thread($0)))" } ?? "")
    }

    /// The finding's stacks with their roles, threads and headings (``stackHeading(_:of:)``),
    /// in the order they explain it.
    public static func stacks(
        of finding: ReportFinding, stack: (Int) -> ReportStack?
    ) -> [(role: StackRole, stack: ReportStack, thread: ReportThread?, heading: String)] {
        finding.stackReferences.compactMap { role, id in
            guard let found = stack(id) else { return nil }
            return (role, found, finding.thread(of: role), stackHeading(role, of: finding))
        }
    }

    /// A finding as a failed test shows it: kind, severity and message; the test; each stack
    /// with its role and thread, folded; why a leaked subscription is still alive (its retain
    /// path, ``ReportRetainPath/textLines()``); the suppression; the fingerprint.
    public static func describe(
        _ finding: ReportFinding, stack: (Int) -> ReportStack?, imagePath: (Int) -> String?, detail: Detail = .failure
    ) -> String {
        var lines = ["\(finding.kind) [\(finding.severity.rawValue)]: \(finding.message)"]
        if let test = finding.test {
            lines.append("  test: \(test)")
        }
        let shown = stacks(of: finding, stack: stack)
        for (_, found, _, heading) in shown {
            lines.append("  " + heading + ":")
            let frames = found.frames.map { ReportFrame.Shown(frame: $0, imagePath: $0.image.flatMap(imagePath)) }
            lines += Self.lines(frames: frames, droppedFrames: found.droppedFrames, detail: detail).map {
                "    " + $0.plain
            }
        }
        if !shown.contains(where: { $0.role == .event }), let thread = finding.thread,
            !(FindingCatalog.info(for: finding.kind)?.isLifetime ?? false)
        {
            lines.append("  on \(Self.thread(thread))")
        }
        lines += chainLines(of: finding, stack: stack, imagePath: imagePath, detail: detail).map { "  " + $0 }
        if let retainPath = finding.retainPath {
            lines += retainPath.textLines().map { "  " + $0 }
        }
        if let suppressed = finding.suppressedBy {
            lines.append("  suppressed by \(suppressed)")
        }
        lines.append("  fingerprint \(finding.fingerprint)")
        return lines.joined(separator: "\n")
    }
}

extension FindingText {
    /// The stages of a folded chain (``ReportFinding/chain``), upstream first, each where the
    /// user's code made it (its first user frame: the function for a failed test, the line in a
    /// viewer) and the one that keeps the chain alive marked; empty for a finding of one stage.
    ///
    /// ```swift
    /// FindingText.chainLines(of: finding, stack: { index[$0] }, imagePath: { images[$0]?.path })
    /// // ["chain of 3 stages, upstream first:",
    /// //  "  Empty<Int, Never> (inner of FlatMap), the cause: made at Feed.swift:42", …]
    /// ```
    public static func chainLines(
        of finding: ReportFinding, stack: (Int) -> ReportStack?, imagePath: (Int) -> String?, detail: Detail = .viewer
    ) -> [String] {
        guard let chain = finding.chain, chain.count > 1 else { return [] }
        var lines = ["chain of \(chain.count) stages, upstream first:"]
        for stage in chain {
            var line = "  " + stage.name + (stage.isCause ? ", the cause" : "")
            let user = stage.allocationStack.flatMap(stack)?.frames.first { $0.category == .user }
            if let user {
                let shown = ReportFrame.Shown(frame: user, imagePath: user.image.flatMap(imagePath))
                let place = detail == .viewer ? shown.presentedLocation ?? shown.presentedName : shown.presentedName
                line += ": made at \(place)"
            }
            lines.append(line)
        }
        return lines
    }
}

extension StackRole {
    /// How the presentation introduces a stack of this role: `allocated at`, `event at`,
    /// `other delivery at`.
    public var heading: String {
        switch self {
        case .allocation: return "allocated at"
        case .event: return "event at"
        case .related: return "other delivery at"
        }
    }
}
