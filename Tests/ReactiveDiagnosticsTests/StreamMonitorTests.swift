import Dispatch
import Foundation
@_spi(Integration) import ReactiveDiagnostics
import Testing

/// Every transition of the `next* (finished | failure)` state machine, with demand and
/// serial-delivery rules, and every grammar finding kind.
@Suite("Stream grammar")
struct StreamMonitorTests {
    let label = DiagnosticLabel("feed")

    /// Runs `body` as test `name`, returning the identity findings must carry.
    func asTest(_ name: String = #function, _ body: () -> Void) -> TestIdentity {
        let test = TestIdentity(name: "StreamMonitorTests.\(name)")
        TestIdentity.$current.withValue(test) { body() }
        return test
    }

    func deliver(_ monitor: StreamMonitor, returning demand: StreamDemand = .none) {
        let delivery = monitor.willDeliverValue()
        monitor.didDeliverValue(delivery, additionalDemand: demand)
    }

    func terminate(_ monitor: StreamMonitor, failure: String? = nil) {
        monitor.didTerminate(monitor.willTerminate(failure: failure))
    }

    /// Asserts kind, label, test attribution and that the allocation stack starts in the test.
    func expect(
        _ engine: DiagnosticsEngine, _ kind: FindingKind, test: TestIdentity, function: String = #function,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Finding? {
        guard let finding = onlyFinding(engine, kind, sourceLocation: sourceLocation) else { return nil }
        #expect(finding.label == "feed", sourceLocation: sourceLocation)
        #expect(finding.test == test, sourceLocation: sourceLocation)
        #expect(finding.severity == kind.defaultSeverity, sourceLocation: sourceLocation)
        #expect(
            finding.eventStack.isCaptured, "the offending event's stack is recorded", sourceLocation: sourceLocation)
        #expect(finding.thread != nil, sourceLocation: sourceLocation)
        expectStack(engine, finding.allocationStack, contains: function, sourceLocation: sourceLocation)
        return finding
    }

    // MARK: Correct streams

    @Test func aCorrectStreamProducesNoFindingAndEndsItsResource() {
        let engine = makeEngine()
        let monitor = engine.makeStreamMonitor(label: label)
        #expect(monitor.state == .awaitingSubscription)
        #expect(engine.ledger.liveCount(of: .subscription) == 1)
        monitor.receivedSubscription()
        #expect(monitor.state == .active)
        monitor.requested(.max(2))
        deliver(monitor)
        deliver(monitor, returning: .max(1))
        deliver(monitor)
        #expect(monitor.outstandingDemand == 0)
        terminate(monitor)
        #expect(monitor.state == .finished)
        #expect(monitor.valuesDelivered == 3)
        #expect(engine.findings().isEmpty)
        #expect(engine.ledger.liveCount(of: .subscription) == 0)
    }

    @Test func failureIsATerminalState() {
        let engine = makeEngine()
        let monitor = engine.makeStreamMonitor(label: label)
        monitor.receivedSubscription()
        monitor.requested(.unlimited)
        deliver(monitor)
        terminate(monitor, failure: "timeout")
        #expect(monitor.state == .failed)
        #expect(engine.findings().isEmpty)
    }

    @Test func cancelEndsTheResourceAndLaterCancelsAreHarmless() {
        let engine = makeEngine()
        let monitor = engine.makeStreamMonitor(label: label)
        monitor.receivedSubscription()
        monitor.requested(.unlimited)
        monitor.cancelled()
        monitor.cancelled()
        #expect(monitor.state == .cancelled)
        #expect(engine.ledger.liveCount(of: .subscription) == 0)
        terminate(monitor)  // completion racing a cancel is legal
        #expect(monitor.state == .cancelled)
        #expect(engine.findings().isEmpty)
    }

    @Test func cancelAfterCompletionIsANoOp() {
        let engine = makeEngine()
        let monitor = engine.makeStreamMonitor(label: label)
        monitor.receivedSubscription()
        terminate(monitor)
        monitor.cancelled()
        #expect(monitor.state == .finished)
        #expect(engine.findings().isEmpty)
    }

    @Test func unlimitedDemandIsSticky() {
        let engine = makeEngine()
        let monitor = engine.makeStreamMonitor(label: label)
        monitor.receivedSubscription()
        monitor.requested(.max(1))
        monitor.requested(.unlimited)
        monitor.requested(.max(5))
        for _ in 0..<1_000 { deliver(monitor) }
        #expect(monitor.outstandingDemand == nil)
        #expect(engine.findings().isEmpty)
    }

    @Test func demandSaturatesInsteadOfOverflowing() {
        let engine = makeEngine()
        let monitor = engine.makeStreamMonitor(label: label)
        monitor.receivedSubscription()
        monitor.requested(.max(Int.max - 1))
        monitor.requested(.max(10))
        #expect(monitor.outstandingDemand == nil)
    }

    @Test func streamsWithoutDemandOrSubscription() {
        let engine = makeEngine()
        let monitor = engine.makeStreamMonitor(
            label: label, options: .init(tracksDemand: false, expectsSubscription: false))
        #expect(monitor.state == .active)
        for _ in 0..<10 { deliver(monitor) }
        terminate(monitor)
        #expect(engine.findings().isEmpty)
    }

    @Test func deallocatingAMonitorEndsItsResource() {
        let engine = makeEngine()
        do {
            let monitor = engine.makeStreamMonitor(label: label)
            monitor.receivedSubscription()
            #expect(engine.ledger.liveCount(of: .subscription) == 1)
        }
        #expect(engine.ledger.liveCount(of: .subscription) == 0)
    }

    // MARK: Grammar findings

    @Test func valueAfterFinished() {
        let engine = makeEngine()
        let test = asTest {
            let monitor = engine.makeStreamMonitor(label: label)
            monitor.receivedSubscription()
            monitor.requested(.unlimited)
            terminate(monitor)
            deliver(monitor)
        }
        let finding = expect(engine, .valueAfterTermination, test: test)
        #expect(finding?.details["state"] == "finished")
        expectStack(engine, finding?.eventStack ?? .none, contains: "valueAfterFinished")
    }

    @Test func valueAfterFailure() {
        let engine = makeEngine()
        let test = asTest {
            let monitor = engine.makeStreamMonitor(label: label)
            monitor.receivedSubscription()
            monitor.requested(.unlimited)
            terminate(monitor, failure: "boom")
            deliver(monitor)
        }
        #expect(expect(engine, .valueAfterTermination, test: test)?.details["state"] == "failed")
    }

    @Test func secondTermination() {
        let engine = makeEngine()
        let test = asTest {
            let monitor = engine.makeStreamMonitor(label: label)
            monitor.receivedSubscription()
            terminate(monitor)
            terminate(monitor, failure: "late")
            #expect(monitor.state == .finished, "the first terminal event wins")
        }
        _ = expect(engine, .duplicateTermination, test: test)
    }

    @Test func valueBeforeSubscription() {
        let engine = makeEngine()
        let test = asTest {
            let monitor = engine.makeStreamMonitor(label: label)
            deliver(monitor)
        }
        _ = expect(engine, .eventBeforeSubscription, test: test)
    }

    @Test func completionBeforeSubscription() {
        let engine = makeEngine()
        let test = asTest {
            let monitor = engine.makeStreamMonitor(label: label)
            terminate(monitor)
            #expect(monitor.state == .finished)
        }
        _ = expect(engine, .eventBeforeSubscription, test: test)
    }

    @Test func secondSubscription() {
        let engine = makeEngine()
        let test = asTest {
            let monitor = engine.makeStreamMonitor(label: label)
            monitor.receivedSubscription()
            monitor.receivedSubscription()
        }
        _ = expect(engine, .duplicateSubscription, test: test)
    }

    @Test func valuesBeyondRequestedDemand() {
        let engine = makeEngine()
        let test = asTest {
            let monitor = engine.makeStreamMonitor(label: label)
            monitor.receivedSubscription()
            monitor.requested(.max(1))
            deliver(monitor)
            deliver(monitor)
        }
        #expect(expect(engine, .demandExceeded, test: test)?.details["outstandingDemand"] == "0")
    }

    @Test func demandReturnedFromReceiveCounts() {
        let engine = makeEngine()
        let monitor = engine.makeStreamMonitor(label: label)
        monitor.receivedSubscription()
        monitor.requested(.max(1))
        deliver(monitor, returning: .max(2))
        deliver(monitor)
        deliver(monitor)
        #expect(engine.findings().isEmpty, "1 requested + 2 returned = 3 values allowed")
        deliver(monitor)
        #expect(engine.findings().map(\.kind) == [.demandExceeded])
    }

    @Test(arguments: [0, -3])
    func nonPositiveRequest(count: Int) {
        let engine = makeEngine()
        let test = TestIdentity(name: "StreamMonitorTests.nonPositiveRequest")
        TestIdentity.$current.withValue(test) {
            let monitor = engine.makeStreamMonitor(label: label)
            monitor.receivedSubscription()
            monitor.requested(.max(count))
            #expect(monitor.outstandingDemand == 0)
        }
        #expect(
            expect(engine, .invalidDemand, test: test, function: "nonPositiveRequest")?.details["demand"] == "\(count)")
    }

    @Test func requestAfterTermination() {
        let engine = makeEngine()
        let test = asTest {
            let monitor = engine.makeStreamMonitor(label: label)
            monitor.receivedSubscription()
            terminate(monitor)
            monitor.requested(.max(1))
        }
        #expect(expect(engine, .requestAfterTermination, test: test)?.severity == .warning)
    }

    @Test func valueAfterCancelIsInformationOnly() {
        let engine = makeEngine()
        let test = asTest {
            let monitor = engine.makeStreamMonitor(label: label)
            monitor.receivedSubscription()
            monitor.requested(.max(1))
            monitor.cancelled()
            deliver(monitor)
            deliver(monitor)
        }
        let findings = engine.findings()
        #expect(
            findings.map(\.kind) == [.valueAfterCancel, .valueAfterCancel],
            "in-flight values never count against demand")
        #expect(findings.allSatisfy { $0.severity == .info && !$0.failsTest && $0.test == test })
    }

    @Test func reentrantDeliveryOnOneThread() {
        let engine = makeEngine()
        let test = asTest {
            let monitor = engine.makeStreamMonitor(label: label)
            monitor.receivedSubscription()
            monitor.requested(.unlimited)
            let outer = monitor.willDeliverValue()
            deliver(monitor)  // the downstream sent into its own upstream
            monitor.didDeliverValue(outer)
            deliver(monitor)
        }
        #expect(expect(engine, .reentrantDelivery, test: test)?.severity == .warning)
    }

    @Test func concurrentDeliveryNamesBothThreadsAndStacks() throws {
        let engine = makeEngine()
        let test = TestIdentity(name: "StreamMonitorTests.concurrentDelivery")
        let monitor = TestIdentity.$current.withValue(test) { engine.makeStreamMonitor(label: label) }
        monitor.receivedSubscription()
        monitor.requested(.unlimited)
        let firstIsDelivering = DispatchSemaphore(value: 0)
        let secondIsDone = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            let delivery = monitor.willDeliverValue()
            firstIsDelivering.signal()
            secondIsDone.wait()  // still "inside" the downstream while the other thread delivers
            monitor.didDeliverValue(delivery)
        }
        firstIsDelivering.wait()
        DispatchQueue.global().async(group: group) {
            let delivery = monitor.willDeliverValue()
            monitor.didDeliverValue(delivery)
            secondIsDone.signal()
        }
        group.wait()
        let finding = try #require(
            expect(engine, .concurrentDelivery, test: test, function: "concurrentDeliveryNamesBothThreadsAndStacks"))
        let latest = engine.latest(finding)
        #expect(latest.relatedStack.isCaptured, "the other thread adds its stack when it finishes delivering")
        #expect(latest.otherThread != nil && latest.otherThread?.id != latest.thread?.id)
        #expect(engine.describe(latest).contains("other delivery at"))
    }

    // MARK: Contracts

    @Test func contractValueCountUpperBound() {
        let engine = makeEngine()
        let test = asTest {
            let monitor = engine.makeStreamMonitor(label: label, contract: .single)
            monitor.receivedSubscription()
            monitor.requested(.unlimited)
            deliver(monitor)
            deliver(monitor)
        }
        let finding = expect(engine, .contractViolation, test: test)
        #expect(finding?.details["rule"] == "values" && finding?.details["actual"] == "2")
    }

    @Test func contractValueCountLowerBound() {
        let engine = makeEngine()
        let test = asTest {
            let monitor = engine.makeStreamMonitor(label: label, contract: StreamContract(values: 2...5))
            monitor.receivedSubscription()
            monitor.requested(.unlimited)
            deliver(monitor)
            terminate(monitor)
        }
        #expect(expect(engine, .contractViolation, test: test)?.details["expected"] == "2...5")
    }

    @Test func contractForbidsTermination() {
        let engine = makeEngine()
        let test = asTest {
            let monitor = engine.makeStreamMonitor(label: label, contract: .endless)
            monitor.receivedSubscription()
            terminate(monitor)
        }
        #expect(expect(engine, .contractViolation, test: test)?.details["rule"] == "termination")
    }

    @Test func contractForbidsFailure() {
        let engine = makeEngine()
        let test = asTest {
            let monitor = engine.makeStreamMonitor(label: label, contract: StreamContract(allowsFailure: false))
            monitor.receivedSubscription()
            terminate(monitor, failure: "offline")
        }
        #expect(expect(engine, .contractViolation, test: test)?.details["actual"] == "offline")
    }

    @Test func contractDeliveryOnTheMainQueue() async {
        let engine = makeEngine()
        let test = TestIdentity(name: "StreamMonitorTests.contractDeliveryOnTheMainQueue")
        let monitor = TestIdentity.$current.withValue(test) {
            engine.makeStreamMonitor(label: label, contract: StreamContract(delivery: .mainQueue))
        }
        monitor.receivedSubscription()
        monitor.requested(.unlimited)
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                self.deliver(monitor)
                continuation.resume()
            }
        }
        #expect(
            expect(engine, .wrongThread, test: test, function: "contractDeliveryOnTheMainQueue")?.thread?.isMainQueue
                == false)
    }

    @Test func contractsKeptProduceNothing() {
        let engine = makeEngine()
        let monitor = engine.makeStreamMonitor(
            label: label, contract: StreamContract(values: 1...2, termination: .required, allowsFailure: false))
        monitor.receivedSubscription()
        monitor.requested(.unlimited)
        deliver(monitor)
        deliver(monitor)
        terminate(monitor)
        #expect(engine.findings().isEmpty)
        #expect(StreamContract.single.description == "exactly 1 value(s), must terminate")
    }

    // MARK: Test attribution travels with deliveries

    @Test func deliveriesCarryTheTestToOtherThreads() async {
        let engine = makeEngine()
        let test = TestIdentity(name: "StreamMonitorTests.carry")
        let monitor = TestIdentity.$current.withValue(test) { engine.makeStreamMonitor(label: label) }
        monitor.receivedSubscription()
        monitor.requested(.unlimited)
        let seen: TestIdentity = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let delivery = monitor.willDeliverValue()
                let inside = TestIdentity.contextual  // what a nested subscription would record
                monitor.didDeliverValue(delivery)
                continuation.resume(returning: inside)
            }
        }
        #expect(seen == test)
    }
}
