import Foundation
public import ReactiveDiagnostics
public import Testing

/// What repeated two-thread stress runs found, against what the runs did (the ground truth
/// counted by ``callFromTwoThreads(_:_:)`` and ``Overlap``).
///
/// ```swift
/// var tally = StressTally()
/// for _ in 0..<runs {
///     // … one run: `overlapped` from callFromTwoThreads, `inSubscriber` an Overlap …
///     tally.add(outcome.findings, overlapped: overlapped, atSubscriber: inSubscriber.happened)
/// }
/// tally.expect(rate: 0.99, runs: runs)
/// ```
public struct StressTally: Sendable {
    public private(set) var overlappedRuns = 0
    public private(set) var subscriberOverlapRuns = 0
    public private(set) var subscriberOverlapMissed = 0
    public private(set) var detected = 0
    public private(set) var complete = 0
    public private(set) var sameThreadTwice = 0
    public private(set) var falseFindings = 0

    /// No run yet.
    public init() {}

    /// Adds one run's findings. `overlapped`: the emitter's calls overlapped (any finding
    /// without it is false). `atSubscriber`: two deliveries were inside the subscriber at once
    /// (the subscriber runs inside the checked delivery, so such a run must always be found).
    public mutating func add(_ findings: [Finding], overlapped: Bool, atSubscriber: Bool) {
        let concurrent = findings.filter { $0.kind == .concurrentDelivery }
        falseFindings += findings.count - concurrent.count
        sameThreadTwice += concurrent.count { $0.otherThread == nil || $0.otherThread?.id == $0.thread?.id }
        guard overlapped else {
            falseFindings += concurrent.count
            return
        }
        overlappedRuns += 1
        if atSubscriber {
            subscriberOverlapRuns += 1
            if concurrent.isEmpty { subscriberOverlapMissed += 1 }
        }
        if !concurrent.isEmpty {
            detected += 1
        }
        if concurrent.contains(where: { $0.relatedStack.isCaptured && $0.eventStack.isCaptured }) {
            complete += 1
        }
    }

    /// Never a finding where the calls did not overlap, never one thread named twice; every run
    /// whose deliveries overlapped inside the subscriber found; and, with `rate`, at least that
    /// share of the runs whose calls overlapped found with both stacks. Prints the figures to
    /// standard error.
    public func expect(rate: Double?, runs: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        let summary =
            "\(detected) of \(overlappedRuns) runs whose calls overlapped found (\(complete) with both stacks), "
            + "\(subscriberOverlapRuns - subscriberOverlapMissed) of \(subscriberOverlapRuns) whose deliveries overlapped in the subscriber, of \(runs) runs"
        FileHandle.standardError.write(Data("serial delivery stress: \(summary)\n".utf8))
        #expect(
            overlappedRuns * 2 >= runs, "the stress must overlap its threads: \(summary)",
            sourceLocation: sourceLocation)
        #expect(subscriberOverlapMissed == 0, "\(summary)", sourceLocation: sourceLocation)
        if let rate {
            #expect(Double(detected) >= rate * Double(overlappedRuns), "\(summary)", sourceLocation: sourceLocation)
            #expect(Double(complete) >= rate * Double(overlappedRuns), "\(summary)", sourceLocation: sourceLocation)
        }
        #expect(
            sameThreadTwice == 0, "\(sameThreadTwice) findings named one thread twice", sourceLocation: sourceLocation)
        #expect(
            falseFindings == 0, "\(falseFindings) findings where the calls never overlapped",
            sourceLocation: sourceLocation)
    }
}
