
/// Cancels that came before any value, kept until a checkpoint decides (by symbolizing the
/// cancel stack, off the hot path) whether a released cancellable caused them.
final class PrematureCancelLedger: Sendable {
    struct Candidate: Hashable {
        var label: DiagnosticLabel
        var allocationStack: StackID
        var cancelStack: StackID
        var test: TestIdentity
        var markers: [String]
    }

    private let candidates = LockedValue([Candidate: Int]())

    func note(_ candidate: Candidate) {
        candidates.withLock { $0[candidate, default: 0] += 1 }
    }

    /// Removes and returns the candidates of `test` (all of them for `nil`).
    func take(test: TestIdentity?) -> [(Candidate, Int)] {
        candidates.withLock { candidates in
            let chosen = candidates.filter { test == nil || $0.key.test == test }
            for key in chosen.keys {
                candidates.removeValue(forKey: key)
            }
            return chosen.map { ($0.key, $0.value) }.sorted { $0.0.cancelStack < $1.0.cancelStack }
        }
    }
}

extension DiagnosticsEngine {
    static let prematureCancelStackDepth = 24

    /// Called by a monitor cancelled before any value: remembers the cancel's stack.
    func notePossiblePrematureCancel(of monitor: StreamMonitor) {
        guard monitor.allocationStack.isCaptured else { return }
        let stack = StackCapture.capture(depth: Self.prematureCancelStackDepth, into: stacks)
        premature.note(.init(
            label: monitor.label, allocationStack: monitor.allocationStack, cancelStack: stack, test: monitor.test,
            markers: monitor.options.prematureCancellationMarkers))
    }

    /// Turns remembered cancels whose stack shows a released cancellable into findings.
    func evaluatePrematureCancels(test: TestIdentity?) {
        for (candidate, count) in premature.take(test: test) {
            let cancel = symbolizer.symbolize(stacks.addresses(of: candidate.cancelStack))
            guard let marker = candidate.markers.first(where: { marker in
                cancel.contains { $0.function?.contains(marker) == true }
            }) else { continue }
            let label = candidate.label.name
            let named = label.isEmpty ? "a stream" : "'\(label)'"
            record(FindingDraft(
                kind: .prematureCancellation,
                message: "\(named) was cancelled before it produced anything because its cancellable was released (\(marker)): store it, for example with .store(in: &cancellables)",
                label: label.isEmpty ? nil : label, resourceKind: .subscription, test: candidate.test,
                allocationStack: candidate.allocationStack, capturesEventStack: false, eventStack: candidate.cancelStack,
                details: ["count": "\(count)", "marker": marker]))
        }
    }
}
