import Foundation

extension ReportRetainPath {
    /// The path as people read it, for test failures, `reactive-diag show` and the HTML page.
    ///
    /// ```text
    /// retained by a cycle:
    ///   FeedViewModel
    ///     .cancellables: Set<AnyCancellable>
    ///   → AnyCancellable → Sink<[String], Never> (this subscription)
    ///     .receiveValue: closure at FeedViewModel.swift:32 captures `self` strongly
    ///   → FeedViewModel (the same object)
    /// fix: capture [weak self] in the closure at FeedViewModel.swift:32 (cancelling in deinit is not enough: nothing releases FeedViewModel)
    /// ```
    public func textLines() -> [String] {
        switch verdict {
        case .cycle where !cycle.isEmpty:
            return cycleLines() + ["fix: " + cycleFix()]
        case .heldOnlyByItself:
            return loopLines() + holdLines() + noteLines() + ["fix: " + Self.loopFix]
        case .cycle, .notACycle:
            var lines: [String]
            if let holder {
                lines = ["not a retain cycle: the global variable `\(holder)` holds it"]
                lines += holderLines()
            } else {
                lines = [
                    "not a retain cycle: nothing the subscription holds leads back to it; something outside holds it"
                        + " (no global or static variable was found holding it: a long-lived object, or a cancellable kept too long)"
                ]
            }
            lines += holdLines()
            lines += noteLines()
            if let fix {
                lines.append("fix: " + fix)
            }
            return lines
        case .unknown:
            var lines = ["why it is still alive could not be told"]
            lines += holdLines()
            lines += noteLines()
            return lines
        }
    }

    /// One line: the owner, its property and the capturing closure.
    ///
    /// ```text
    /// retain cycle: FeedViewModel.cancellables → Sink<[String], Never> → closure at FeedViewModel.swift:32 captures self
    /// ```
    public var summary: String {
        if verdict == .heldOnlyByItself {
            return loopSummary
        }
        guard verdict == .cycle, let owner = cycle.first else {
            if verdict != .unknown, let holder {
                let chain = heldBy.map { Self.displayType($0.type) }.joined(separator: " → ")
                return "not a retain cycle: the global variable `\(holder)` holds it"
                    + (chain.isEmpty ? "" : " (\(chain))")
            }
            return verdict == .notACycle ? "not a retain cycle: something outside holds it" : "retain path unknown"
        }
        var parts = [Self.displayType(owner.type) + Self.fieldPath(owner.links)]
        for step in cycle.dropFirst() where step.isSubscription || step.category == .user {
            parts.append(Self.displayType(step.type))
        }
        if let capture = capturingClosure {
            parts.append(Self.closureText(capture.closure) + (capture.name.map { " captures \($0)" } ?? ""))
        }
        return "retain cycle: " + parts.joined(separator: " → ")
    }

    // MARK: Cycle

    private func cycleLines() -> [String] {
        var lines = ["retained by a cycle:"]
        var arrow: [String] = []
        for (index, step) in cycle.enumerated() {
            let next = cycle[(index + 1) % cycle.count]
            let type = step.category == .user ? Self.displayType(step.type) : Self.displayType(step.type, depth: 3)
            let name = type + (step.isSubscription ? " (this subscription)" : "")
            if index == 0 {
                lines.append("  " + name)
            } else {
                arrow.append(name)
            }
            let shows =
                index == 0 || step.category == .user || next.category == .user
                || step.links.contains { $0.closure?.category == .user }
            guard shows else { continue }
            if !arrow.isEmpty {
                lines.append("  → " + arrow.joined(separator: " → "))
                arrow = []
            }
            lines.append("    " + Self.linkText(step.links, reaching: next))
        }
        arrow.append(Self.displayType(cycle[0].type) + " (the same object)")
        lines.append("  → " + arrow.joined(separator: " → "))
        return lines
    }

    /// The user's closure that captures the next object on the cycle strongly, if any.
    private var capturingClosure: (closure: ReportClosure, name: String?)? {
        for step in cycle {
            let user = Self.userClosures(step.links)
            if let last = user.last {
                return (last.closure, last.captured)
            }
        }
        return nil
    }

    /// What to change, as one sentence (the text after `fix:` in ``textLines()``); `nil` when
    /// the path says nothing to change (nothing outside was found holding it).
    ///
    /// ```swift
    /// if let fix = finding.retainPath?.fix { print("fix:", fix) }
    /// // fix: capture [weak self] in the closure at FeedViewModel.swift:32 (cancelling in deinit is not enough: …)
    /// ```
    public var fix: String? {
        switch verdict {
        case .cycle where !cycle.isEmpty:
            return cycleFix()
        case .heldOnlyByItself:
            return Self.loopFix
        case .cycle, .notACycle:
            guard let holder else { return nil }
            let name = holder.split(separator: ".").last.map(String.init) ?? holder
            return "cancel it, or remove it from \(name), when its work is done"
        case .unknown:
            return nil
        }
    }

    /// The user's closure to change (the one that closes the cycle by a strong capture): where
    /// a fix goes, rather than where the subscription was made.
    public var closureToChange: ReportClosure? {
        guard verdict == .cycle else { return nil }
        return capturingClosure?.closure
    }

    private func cycleFix() -> String {
        let owner = Self.displayType(cycle[0].type)
        let release = "(cancelling in deinit is not enough: nothing releases \(owner))"
        if let capture = capturingClosure {
            let name = capture.name.map { $0 == "self" ? "self" : $0 } ?? "it"
            return "capture [weak \(name)] in the \(Self.closureText(capture.closure)) \(release)"
        }
        for (index, step) in cycle.enumerated() where step.category != .user {
            let next = cycle[(index + 1) % cycle.count]
            guard next.category == .user, let field = step.links.first(where: { $0.kind == .field })?.name else {
                continue
            }
            if step.type.hasPrefix("Assign<") {
                return
                    "assign(to:on:) holds \(Self.displayType(next.type)) strongly (\(Self.displayType(step.type)).\(field)):"
                    + " use sink with [weak self], or assign(to: &$property) \(release)"
            }
            return "\(Self.displayType(step.type)).\(field) holds \(Self.displayType(next.type)) strongly:"
                + " hold it weakly, or end the subscription when \(owner) is done \(release)"
        }
        return "hold one of these references weakly, or end the subscription when \(owner) is done \(release)"
    }

    // MARK: Holds and notes

    private func holderLines() -> [String] {
        guard let first = heldBy.first else { return [] }
        var lines = [
            "  " + (holder.map { ($0.split(separator: ".").last.map(String.init) ?? $0) + ": " } ?? "")
                + Self.displayType(first.type)
        ]
        let rest = heldBy.dropFirst().map {
            Self.displayType($0.type) + ($0.isSubscription ? " (this subscription)" : "")
        }
        if !rest.isEmpty {
            lines.append("  → " + rest.joined(separator: " → "))
        }
        return lines
    }

    private func holdLines() -> [String] {
        guard !holds.isEmpty else { return [] }
        var lines = ["  the subscription holds:"]
        for hold in holds.prefix(8) {
            var text = Self.linkText(hold.links, reaching: nil)
            if hold.links.last?.kind == .field || hold.links.isEmpty {
                text += " → " + Self.displayType(hold.type)
            } else {
                text += " (\(Self.displayType(hold.type)))"
            }
            lines.append("    " + Self.displayType(hold.from) + (text.hasPrefix(".") ? "" : " → ") + text)
        }
        if holds.count > 8 {
            lines.append("    ⋯ \(holds.count - 8) more")
        }
        return lines
    }

    private func noteLines() -> [String] {
        notes.prefix(3).map { "  (\($0))" }
    }
}
