import Foundation
@_spi(Integration) import ReactiveDiagnostics
import ReactiveDiagnosticsTesting
import Synchronization
import Testing

/// Six tests that run at the same time in one process (``TraitProcessTests``): each waits until
/// all six have started, then allocates three subscriptions between suspensions; odd ones
/// leak theirs. Every finding must name the test that made it.
@Suite(.diagnosed, .enabled(if: Fixture.isActive, Fixture.disabledReason))
struct ParallelFixtures {
    static let count = 6
    static let started = Atomic<Int>(0)

    @Test(arguments: 0..<count)
    func overlaps(index: Int) async throws {
        Self.started.add(1, ordering: .relaxed)
        let deadline = ContinuousClock.now + .seconds(20)
        while Self.started.load(ordering: .relaxed) < Self.count {
            try #require(ContinuousClock.now < deadline, "the \(Self.count) tests never ran at the same time")
            try await Task.sleep(for: .milliseconds(5))
        }
        for step in 0..<3 {
            let monitor = DiagnosticsEngine.shared.makeStreamMonitor(
                label: DiagnosticLabel("parallel-\(index)-\(step)"))
            monitor.receivedSubscription()
            try await Task.sleep(for: .milliseconds(10 + 7 * index))
            if index % 2 == 1 {
                Fixture.keep(monitor)
            } else {
                monitor.cancelled()
            }
        }
    }
}
