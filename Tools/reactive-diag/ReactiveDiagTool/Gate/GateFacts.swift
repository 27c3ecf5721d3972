import ReactiveDiagnosticsReport

/// What the gate's writers (SARIF, JUnit, annotations) need to know about new findings:
/// their stacks as views and where in the source each one points.
struct GateFacts {
    /// The gate's decision.
    let evaluation: GateEvaluation
    /// Stacks, converted on demand.
    var stacks: StackTable
    /// Source paths relative to the repository.
    let paths: SourcePaths
    /// The live sites, most first (for the `--max-live` failure).
    let liveSites: [LiveSiteView]
    /// The mechanical fixes of the new findings, by fingerprint (when a fixer is registered).
    var fixes: [String: FindingFixOutcome] = [:]
    /// Folded stacks as plain text, each rendered once.
    let stackText = StackText.Cache(style: TerminalStyle(enabled: false))

    /// Escaped XML text of a folded stack, each line on its own line after a newline.
    /// Cached by stack id: many findings share a stack.
    mutating func escapedStack(_ stack: StackView) -> String {
        if let cached = escapedStacks[stack.id] { return cached }
        let text = stackText.lines(for: stack).map { "\n  " + XMLText.escape($0) }.joined()
        escapedStacks[stack.id] = text
        return text
    }

    var escapedStacks: [Int: String] = [:]

    /// The stacks of `finding` with their roles and threads, and how the presentation
    /// introduces each (``FindingText/stackHeading(_:of:)``).
    mutating func stacks(of finding: ReportFinding) -> [(heading: String, stack: StackView, thread: ReportThread?)] {
        var result: [(heading: String, stack: StackView, thread: ReportThread?)] = []
        for (role, id) in finding.stackReferences {
            if let stack = stacks.view(id) {
                result.append((FindingText.stackHeading(role, of: finding), stack, finding.thread(of: role)))
            }
        }
        return result
    }

    /// Where `finding` is placed (``FindingPlacement``): its culprit frame with a source line,
    /// else the frame that best says where without one.
    mutating func place(of finding: ReportFinding) -> (stack: Int, frame: FrameView)? {
        let index = stacks.index
        guard let place = FindingPlacement.place(of: finding, stacks: index.stack),
            let stack = stacks.view(place.stack), place.index < stack.frames.count
        else { return nil }
        return (place.stack, stack.frames[place.index])
    }

    /// The culprit frame, when it has a source line.
    mutating func sourceFrame(of finding: ReportFinding) -> FrameView? {
        guard let frame = place(of: finding)?.frame, frame.file != nil, (frame.line ?? 0) > 0 else { return nil }
        return frame
    }

    /// Where the most live resources were allocated: the first user frame with a line of the
    /// top site's stack, else its focus frame.
    mutating func liveSiteFrame() -> FrameView? {
        guard let id = liveSites.first?.stack, let stack = stacks.index.stack(id) else { return nil }
        let probe = ReportFinding(
            id: 0, kind: "", severity: .error, message: "", fingerprint: "", policy: "", allocationStack: id)
        guard let place = FindingPlacement.place(of: probe, stacks: { $0 == id ? stack : nil }) else { return nil }
        return stacks.view(id).map { $0.frames[place.index] }
    }

    /// `leakedSubscription "cart.refresh"`: the kind and the label.
    static func title(kind: String, label: String?) -> String {
        label.map { "\(kind) \(Formatting.quoted($0))" } ?? kind
    }

    /// The one-line message about too many live resources.
    var liveMessage: String {
        var text =
            "\(Formatting.count(evaluation.liveTotal, "resource")) alive at the end, "
            + "more than --max-live \(evaluation.maxLive ?? 0)"
        if !liveSites.isEmpty {
            let top = liveSites.prefix(3).map { site in
                "\(site.count) × \(site.kind) \(Formatting.quoted(site.label))"
                    + (site.location.map { " at \($0)" } ?? "")
            }
            text += "; most at: " + top.joined(separator: "; ")
        }
        return text
    }
}
