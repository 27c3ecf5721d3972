import Dispatch
import Foundation
@_spi(Integration) import ReactiveDiagnostics
import ReactiveDiagnosticsTesting
import Testing

/// Fixtures for the `.diagnosed` trait; run by ``TraitProcessTests`` in a child process.
@Suite(.diagnosed, .enabled(if: Fixture.isActive, Fixture.disabledReason))
struct TraitFixtures {
    static let file = #filePath

    @Test func leaks() {
        // swift-format-ignore
        let monitor = DiagnosticsEngine.shared.makeStreamMonitor(label: DiagnosticLabel("trait-leak"))  // SITE: trait-leak
        monitor.receivedSubscription()
        Fixture.keep(monitor)
    }

    @Test func endsItsSubscription() async throws {
        let monitor = DiagnosticsEngine.shared.makeStreamMonitor(label: DiagnosticLabel("trait-clean"))
        monitor.receivedSubscription()
        try await Task.sleep(for: .milliseconds(5))
        monitor.cancelled()
    }

    @Test(.diagnosed(allowing: [.leakedSubscription]))
    func allowsItsLeak() {
        let monitor = DiagnosticsEngine.shared.makeStreamMonitor(label: DiagnosticLabel("trait-allowed"))
        monitor.receivedSubscription()
        Fixture.keep(monitor)
    }

    @Test(.diagnosed(settle: .seconds(10)))
    func endsLateWithARaisedSettleTime() {
        Self.endLate(label: "trait-slow")
    }

    @Test func endsLateWithTheDefaultSettleTime() {
        Self.endLate(label: "trait-slow-default")
    }

    /// A subscription cancelled 300 ms after the test body returns, on another thread.
    static func endLate(label: String) {
        let monitor = DiagnosticsEngine.shared.makeStreamMonitor(label: DiagnosticLabel(label))
        monitor.receivedSubscription()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { monitor.cancelled() }
    }

    @Test func leaksInVendorCode() {
        let monitor = DiagnosticsEngine.shared.makeStreamMonitor(label: DiagnosticLabel("vendor-sdk-cache"))
        monitor.receivedSubscription()
        Fixture.keep(monitor)
    }

    @Test(.diagnosed(suppressing: Suppressions(rules: [.init(type: "leak", pattern: "^vendor-ads")])))
    func declaresAVendorSuppression() {}

    @Test func leaksInAnotherVendorsCode() {
        let monitor = DiagnosticsEngine.shared.makeStreamMonitor(label: DiagnosticLabel("vendor-ads-tracker"))
        monitor.receivedSubscription()
        Fixture.keep(monitor)
    }

    @Test func leaksOnAThreadWithoutATest() async {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let monitor = DiagnosticsEngine.shared.makeStreamMonitor(label: DiagnosticLabel("trait-unattributed"))
                monitor.receivedSubscription()
                Fixture.keep(monitor)
                continuation.resume()
            }
        }
    }

    @Test func leaksInWorkOfADiagnosedScheduler() async {
        let probe = DiagnosticsEngine.shared.makeSchedulerProbe(label: "trait-scheduler")
        let action = probe.willSchedule()
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let run = probe.willRun(action)  // what a diagnosed scheduler does around each action
                let monitor = DiagnosticsEngine.shared.makeStreamMonitor(label: DiagnosticLabel("trait-scheduled"))
                monitor.receivedSubscription()
                Fixture.keep(monitor)
                probe.didRun(action, run)
                continuation.resume()
            }
        }
    }
}
