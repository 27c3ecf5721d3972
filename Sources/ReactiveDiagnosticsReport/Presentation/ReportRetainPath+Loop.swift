extension ReportRetainPath {
    /// The lines of a ``Verdict/heldOnlyByItself`` path: the loop, from the subscription round
    /// to itself.
    ///
    /// ```text
    /// held only by itself: nothing outside holds it; it and what it holds keep each other alive
    ///   TrackingSubscriber<Int, Never>.history (this subscription)
    ///   → [Event] → Inner<…> → TrackingSubscriber<Int, Never> (the same object)
    /// ```
    func loopLines() -> [String] {
        var lines = [
            "held only by itself: nothing outside holds it; it and what it holds keep each other alive"
        ]
        guard let first = cycle.first else { return lines }
        lines.append("  " + loopName(first))
        let rest = cycle.dropFirst().map(loopName) + [loopName(first, fields: false) + " (the same object)"]
        lines.append("  → " + rest.joined(separator: " → "))
        return lines
    }

    /// One line, the path's ``summary``:
    /// `held only by itself: PagingSubscriber → Inner<…> → PagingSubscriber (the same object); never cancelled, and nothing outside holds it`.
    var loopSummary: String {
        guard let first = cycle.first else {
            return "held only by itself: never cancelled, and nothing outside holds it"
        }
        let names = cycle.map { loopName($0, fields: false) } + [loopName(first, fields: false) + " (the same object)"]
        return "held only by itself: " + names.joined(separator: " → ")
            + "; never cancelled, and nothing outside holds it"
    }

    /// What to do about a subscription nothing outside holds.
    static let loopFix =
        "end it when its work is done: keep what subscribing returns (an AnyCancellable) and cancel it,"
        + " or have the subscriber cancel the subscription it keeps, or complete the publisher;"
        + " nothing outside holds it now, so nothing can end it"

    private func loopName(_ step: ReportRetainStep) -> String {
        loopName(step, fields: true)
    }

    private func loopName(_ step: ReportRetainStep, fields: Bool) -> String {
        let type = step.category == .user ? Self.displayType(step.type) : Self.displayType(step.type, depth: 3)
        return type + (fields ? Self.fieldPath(step.links) : "")
            + (step.isSubscription && fields ? " (this subscription)" : "")
    }
}
