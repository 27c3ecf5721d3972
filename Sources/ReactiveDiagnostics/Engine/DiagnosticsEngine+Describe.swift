import ReactiveDiagnosticsReport

extension DiagnosticsEngine {
    /// A multi-line description of a finding for test failure messages and the console:
    /// the message, then each stack with the user's frames shown and runs of framework and
    /// runtime frames folded into one line.
    ///
    /// ```text
    /// leakedSubscription [error] 'refresh': subscription 'refresh' is still alive at the end of …
    ///   allocated at:
    ///     ⋯ 3 framework frames (OpenCombine)
    ///     FeedTests.testRefresh() -> ()
    ///     ⋯ 9 framework and system frames (XCTest, Foundation, Swift)
    ///   fingerprint 3f9a0c1e2b7d4a55
    /// ```
    public func describe(_ finding: Finding, maximumFramesPerStack: Int = 12) -> String {
        let finding = latest(finding)
        var lines = ["\(finding.kind) [\(finding.severity.rawValue)]: \(finding.message)"]
        if let test = finding.test.name {
            lines.append("  test: \(test)")
        }
        if finding.allocationStack.isCaptured {
            lines.append("  allocated at:")
            lines += describeStack(finding.allocationStack, limit: maximumFramesPerStack)
        }
        if finding.eventStack.isCaptured {
            let thread = finding.thread.map { " (\($0))" } ?? ""
            lines.append("  event at\(thread):")
            lines += describeStack(finding.eventStack, limit: maximumFramesPerStack)
        } else if let thread = finding.thread, !finding.kind.isLifetime {
            lines.append("  on \(thread)")
        }
        if finding.relatedStack.isCaptured {
            let thread = finding.otherThread.map { " (\($0))" } ?? ""
            lines.append("  \(finding.details["relatedStackRole"] ?? "other delivery") at\(thread):")
            lines += describeStack(finding.relatedStack, limit: maximumFramesPerStack)
        }
        if let retainPath = finding.retainPath {
            lines += retainPath.textLines().map { "  " + $0 }
        }
        if let suppressed = finding.suppressedBy {
            lines.append("  suppressed by \(suppressed)")
        }
        lines.append("  fingerprint \(fingerprint(of: finding))")
        return lines.joined(separator: "\n")
    }

    /// The folded lines of one stack, indented for ``describe(_:maximumFramesPerStack:)``.
    public func describeStack(_ stack: StackID, limit: Int = 12) -> [String] {
        let frames = symbolize(stack).frames
        var lines: [String] = []
        var folded: [SymbolizedFrame] = []
        var shown = 0
        func flush() {
            guard !folded.isEmpty else { return }
            let modules = Array(Set(folded.compactMap { $0.module ?? $0.imagePath.map { String($0.split(separator: "/").last ?? "") } }))
                .sorted().prefix(4)
            let kinds = Set(folded.map(\.category))
            let noun = kinds == [.system] ? "system" : kinds == [.framework] ? "framework" : "framework and system"
            let plural = folded.count == 1 ? "frame" : "frames"
            lines.append("    ⋯ \(folded.count) \(noun) \(plural)" + (modules.isEmpty ? "" : " (\(modules.joined(separator: ", ")))"))
            folded.removeAll()
        }
        for frame in frames {
            if shown >= limit {
                folded.append(frame)
                continue
            }
            if frame.category == .user {
                flush()
                lines.append("    \(frame.displayName)")
                shown += 1
            } else {
                folded.append(frame)
            }
        }
        flush()
        if frames.allSatisfy({ $0.category != .user }) {
            // No user frame at all: show the first few so the stack still says something.
            lines = frames.prefix(min(limit, 6)).map { "    \($0.displayName)" }
            if frames.count > 6 {
                lines.append("    ⋯ \(frames.count - 6) more frames")
            }
        }
        return lines
    }
}
