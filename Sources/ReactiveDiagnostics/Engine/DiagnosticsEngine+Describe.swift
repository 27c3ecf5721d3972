import Foundation
import ReactiveDiagnosticsReport

extension DiagnosticsEngine {
    /// A multi-line description of a finding for test failure messages and the console, in the
    /// one presentation `reactive-diag` shares (`FindingText`): the message, then each stack with
    /// the user's frames shown and runs of framework and runtime frames folded into one line.
    ///
    /// ```text
    /// leakedSubscription [error]: subscription 'refresh' is still alive at the end of …
    ///   test: FeedTests/testRefresh
    ///   allocated at:
    ///     ⋯ 3 framework frames (OpenCombine)
    ///     FeedTests.testRefresh() -> ()
    ///     ⋯ 9 framework and system frames (XCTest, Foundation, Swift)
    ///   fingerprint 3f9a0c1e2b7d4a55
    /// ```
    ///
    /// - Parameters:
    ///   - finding: The finding to describe.
    ///   - maximumFramesPerStack: At most this many frames are named per stack; the lines after
    ///     them are summarized in one.
    public func describe(_ finding: Finding, maximumFramesPerStack: Int = 12) -> String {
        let shown = presentable(finding, resolvingLines: false)
        let text = FindingText.describe(
            shown.finding, stack: { shown.stacks[$0] }, imagePath: { shown.images[$0]?.path })
        return Self.limit(text, framesPerStack: maximumFramesPerStack)
    }

    /// The folded lines of one stack, indented as ``describe(_:maximumFramesPerStack:)`` shows them.
    public func describeStack(_ stack: StackID, limit: Int = 12) -> [String] {
        var table = StackTable(engine: self)
        guard let id = table.reference(stack), let found = table.stacks.first(where: { $0.id == id }) else { return [] }
        let images = Dictionary(uniqueKeysWithValues: table.images.map { ($0.id, $0.path) })
        let frames = found.frames.map { ReportFrame.Shown(frame: $0, imagePath: $0.image.flatMap { images[$0] }) }
        let lines = FindingText.lines(frames: frames, droppedFrames: found.droppedFrames, detail: .failure).map {
            "    " + $0.plain
        }
        return Self.limit(lines.joined(separator: "\n"), framesPerStack: limit).split(separator: "\n").map(String.init)
    }

    /// A finding as report data: its stacks symbolized once and, with `resolvingLines`, given the
    /// source lines of their user frames (through the engine's resolver, cached).
    package func presentable(
        _ finding: Finding, resolvingLines: Bool
    ) -> (finding: ReportFinding, stacks: [Int: ReportStack], images: [Int: ReportImage]) {
        var table = StackTable(engine: self)
        var converter = FindingConverter(engine: self)
        let converted = converter.convert(latest(finding), stacks: &table)
        var report = DiagnosticsReport(
            run: RunInfo(processName: "", processID: 0, startTime: startDate, endTime: startDate),
            findings: [converted], stacks: table.stacks, images: table.images)
        if resolvingLines {
            // Its place is a user frame (FindingPlacement), and its text names frames without lines.
            resolveSourceLines(in: &report, categories: [.user])
        }
        return (
            converted, Dictionary(uniqueKeysWithValues: report.stacks.map { ($0.id, $0) }),
            Dictionary(uniqueKeysWithValues: report.images.map { ($0.id, $0) })
        )
    }

    /// `text` with at most `framesPerStack` frame lines after each stack heading; the rest in one line.
    private static func limit(_ text: String, framesPerStack: Int) -> String {
        var output: [Substring] = []
        var shownInStack = 0
        var hidden = 0
        func flush() {
            if hidden > 0 { output.append("    ⋯ \(hidden) more line\(hidden == 1 ? "" : "s")") }
            hidden = 0
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("    ") {
                if shownInStack >= framesPerStack {
                    hidden += 1
                    continue
                }
                if !line.hasPrefix("    ⋯") { shownInStack += 1 }
            } else {
                flush()
                shownInStack = 0
            }
            output.append(line)
        }
        flush()
        return output.joined(separator: "\n")
    }
}
