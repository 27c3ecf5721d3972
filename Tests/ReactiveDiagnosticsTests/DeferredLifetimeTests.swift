import Foundation
@_spi(Integration) import ReactiveDiagnostics
import Testing

/// A test ended in two halves (`finishTest(_:options:deferringLifetime:)`, then
/// `checkDeferredLifetime(of:after:options:)`): what the runner's clean-up releases between
/// them is no leak.
@Suite("Test checkpoints: a lifetime check after the clean-up")
struct DeferredLifetimeTests {
    @Test func resourcesReleasedBetweenTheHalvesAreNotLeaks() {
        let engine = makeEngine { $0.settleTime = .milliseconds(50) }
        let checkpoint = engine.beginTest(named: "DeferredLifetimeTests.released", serial: true)
        var kept: [StreamMonitor] = [engine.makeStreamMonitor(label: DiagnosticLabel("kept-in-a-property"))]
        kept[0].receivedSubscription()
        let first = engine.finishTest(checkpoint, deferringLifetime: true)
        #expect(first.findings.isEmpty, "no lifetime verdict in the first half")
        #expect(engine.serialTest == .none, "the first half ends the test's identity")
        kept = []  // the clean-up (XCTest's tearDown())
        let second = engine.checkDeferredLifetime(of: checkpoint, after: first)
        #expect(second.findings.isEmpty)
        #expect(
            engine.makeReport().run.tests == [
                TestRecord(name: "DeferredLifetimeTests.released", findings: 0, failed: false)
            ])
        withExtendedLifetime(kept) {}
    }

    @Test func whatOutlivesTheCleanUpIsALeakOfTheTest() throws {
        let engine = makeEngine { $0.settleTime = .milliseconds(50) }
        let checkpoint = engine.beginTest(named: "DeferredLifetimeTests.leaks", serial: true)
        let leaked = engine.makeStreamMonitor(label: DiagnosticLabel("outlives-tear-down"))
        leaked.receivedSubscription()
        let delivered = engine.makeStreamMonitor(label: DiagnosticLabel("grammar"))
        delivered.receivedSubscription()
        delivered.requested(.unlimited)
        delivered.didTerminate(delivered.willTerminate(failure: nil))
        delivered.didDeliverValue(delivered.willDeliverValue())
        let first = engine.finishTest(checkpoint, deferringLifetime: true)
        #expect(first.failures.map(\.kind) == [.valueAfterTermination], "grammar findings are final in the first half")
        let second = engine.checkDeferredLifetime(of: checkpoint, after: first)
        let leak = try #require(second.findings.first)
        #expect(second.findings.count == 1)
        #expect(leak.kind == .leakedSubscription && leak.label == "outlives-tear-down" && leak.test == checkpoint.test)
        expectStack(engine, leak.allocationStack, contains: "whatOutlivesTheCleanUpIsALeakOfTheTest")
        #expect(
            engine.makeReport().run.tests == [
                TestRecord(name: "DeferredLifetimeTests.leaks", findings: 2, failed: true)
            ],
            "one record, counting both halves, failed by the first")
        withExtendedLifetime(leaked) {}
    }

    @Test func theSecondHalfAppliesTheTestsAllowances() {
        let engine = makeEngine { $0.settleTime = .milliseconds(50) }
        let checkpoint = engine.beginTest(named: "DeferredLifetimeTests.allowed", serial: true)
        let leaked = engine.makeStreamMonitor(label: DiagnosticLabel("allowed"))
        leaked.receivedSubscription()
        let options = TestOptions(allowedKinds: [.leakedSubscription])
        let first = engine.finishTest(checkpoint, options: options, deferringLifetime: true)
        let second = engine.checkDeferredLifetime(of: checkpoint, after: first, options: options)
        #expect(second.findings.map(\.suppressedBy) == ["test allows leakedSubscription"])
        #expect(second.failures.isEmpty)
        withExtendedLifetime(leaked) {}
    }
}
