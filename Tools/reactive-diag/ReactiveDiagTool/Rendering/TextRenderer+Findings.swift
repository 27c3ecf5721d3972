import ReactiveDiagnosticsReport

extension TextRenderer {
    /// Writes the findings grouped by fingerprint, each with its stacks.
    func renderGroups(_ view: ReportView) {
        guard !view.groups.isEmpty else {
            line(
                view.summary.findings.filteredOut + view.summary.findings.suppressed > 0
                    ? "No findings match the filters." : "No findings.")
            return
        }
        line(style.bold("Findings by fingerprint: \(view.groups.count)"))
        line()
        let width = String(view.groups.count).count
        for (position, group) in view.groups.enumerated() {
            renderGroup(group, number: position + 1, width: width, view: view)
        }
    }

    private func renderGroup(_ group: GroupView, number: Int, width: Int, view: ReportView) {
        let severity = ReportSeverity(rawValue: group.severity) ?? .error
        let indent = String(repeating: " ", count: width + 2)
        var heading =
            Formatting.padLeft("\(number)", width) + ". "
            + style.severity(severity, group.severity.uppercased()) + " " + style.bold(group.kind)
            + " ×\(group.count)"
        if !group.labels.isEmpty {
            heading += "  " + Formatting.list(group.labels.map(Formatting.quoted), limit: 3)
        }
        if let suppressedBy = group.suppressedBy {
            heading += style.dim("  (suppressed by \(suppressedBy))")
        }
        line(heading)
        line(indent + group.message)
        if let location = group.location {
            line(indent + "where       " + style.location(location))
        }
        if !group.tests.isEmpty {
            line(indent + "tests       " + Formatting.list(group.tests, limit: 10))
        }
        if !group.details.isEmpty {
            let details = group.details.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
            line(indent + "details     " + details.joined(separator: " · "))
        }
        line(
            indent
                + style.dim(
                    "fingerprint \(group.fingerprint) · findings "
                        + Formatting.list(group.findingIDs.map { "#\($0)" }, limit: 10)))
        if let chain = group.chain {
            line(indent + "chain       " + (chain.first ?? ""))
            for text in chain.dropFirst() {
                line(indent + "          " + text)
            }
        }
        if let path = group.retainPath {
            line(indent + "why alive   " + (path.lines.first ?? path.summary))
            for text in path.lines.dropFirst() {
                line(indent + "            " + text)
            }
        }
        for reference in group.stacks {
            guard let stack = view.stack(reference.stack) else { continue }
            line(indent + reference.heading + ":")
            for text in stackLines.lines(for: stack) {
                line(indent + "  " + text)
            }
        }
        line()
    }
}

/// A folded stack as lines of text (shared by the terminal view, JUnit and annotations).
///
/// ```swift
/// StackText.lines(for: stack, style: TerminalStyle(enabled: false))
/// // ["▸ #0 CartViewModel.bind() at Cart.swift:42", "  ⋯ 7 framework frames (OpenCombine, XCTest)"]
/// ```
enum StackText {
    /// Remembers the lines of each stack: many findings share a stack, and a view of
    /// 100,000 findings should fold each stack once, not once per finding.
    final class Cache {
        private let style: TerminalStyle
        private var lines: [Int: [String]] = [:]

        init(style: TerminalStyle) {
            self.style = style
        }

        /// The lines of `stack` (by its id).
        func lines(for stack: StackView) -> [String] {
            if let cached = lines[stack.id] { return cached }
            let rendered = StackText.lines(for: stack, style: style)
            lines[stack.id] = rendered
            return rendered
        }
    }

    /// One line per shown frame or fold: the shared presentation (``FindingText``), styled.
    static func lines(for stack: StackView, style: TerminalStyle) -> [String] {
        FindingText.lines(frames: stack.frames, droppedFrames: stack.droppedFrames, detail: .viewer).map { line in
            switch line {
            case .fold(let text, _):
                return style.dim("  " + text)
            case .frame(_, let head, let highlighted, let location, let binary):
                var text = highlighted ? style.highlight(head) : style.dim(head)
                if let location {
                    text += " at " + style.location(location)
                } else if let binary {
                    text += style.dim(" (\(binary))")
                }
                return text
            }
        }
    }
}
