import Dispatch
import Foundation
import ReactiveDiagnostics
import Synchronization
import Testing

/// Monitors and probes driven by a recorder of the test's own, with no engine at all: what they
/// register, unregister and report, and that a trap comes after the recorder's call returned
/// and after the event's bookkeeping, never from inside it.
@Suite("Recorders")
struct RecorderTests {
    /// Everything a monitor or probe asks of its recorder, in order.
    final class FakeRecorder: DiagnosticsRecorder, Sendable {
        enum Call: Equatable {
            case register(ResourceKind, label: String, test: TestIdentity)
            case unregister(UInt64)
            case report(FindingKind)
            case trap(Int)
            case earlyCancel(label: String)
        }

        struct State {
            var calls: [Call] = []
            var drafts: [FindingDraft] = []
            var nextToken: UInt64 = 0
            var reporting = false
            var trappedInsideReport = false
        }

        let state = Mutex(State())
        let traps: Bool
        let test: TestIdentity
        /// Runs when a trap arrives, to look at the monitor's state then.
        let onTrap: @Sendable () -> Void

        init(traps: Bool = false, test: TestIdentity = .none, onTrap: @escaping @Sendable () -> Void = {}) {
            self.traps = traps
            self.test = test
            self.onTrap = onTrap
        }

        var calls: [Call] { state.withLock { $0.calls } }
        var drafts: [FindingDraft] { state.withLock { $0.drafts } }

        var isEnabled: Bool { true }

        func currentTest() -> TestIdentity { test }

        func register(
            _ kind: ResourceKind, label: DiagnosticLabel, stack: StackID?, test: TestIdentity?
        ) -> RecordedResource {
            let test = test ?? currentTest()
            let token = state.withLock { state in
                state.nextToken += 1
                state.calls.append(.register(kind, label: label.name, test: test))
                return state.nextToken
            }
            return RecordedResource(token: ResourceToken(rawValue: token), stack: stack ?? .none, test: test)
        }

        func unregister(_ token: ResourceToken) -> Bool {
            state.withLock { $0.calls.append(.unregister(token.rawValue)) }
            return true
        }

        func report(_ draft: FindingDraft) -> RecordedFinding? {
            let id = state.withLock { state in
                state.reporting = true
                state.calls.append(.report(draft.kind))
                state.drafts.append(draft)
                return state.drafts.count - 1
            }
            defer { state.withLock { $0.reporting = false } }
            return RecordedFinding(id: id, traps: traps)
        }

        func trap(_ finding: RecordedFinding) {
            state.withLock { state in
                if state.reporting { state.trappedInsideReport = true }
                state.calls.append(.trap(finding.id))
            }
            onTrap()
        }

        func noteCancelBeforeAnyValue(
            label: DiagnosticLabel, allocationStack: StackID, test: TestIdentity, markers: [String]
        ) {
            state.withLock { $0.calls.append(.earlyCancel(label: label.name)) }
        }
    }

    let label = DiagnosticLabel("feed")
    let test = TestIdentity(name: "RecorderTests.fake")

    @Test func aCorrectStreamRegistersOnceAndUnregistersOnce() {
        let recorder = FakeRecorder(test: test)
        let monitor = StreamMonitor(recorder: recorder, label: label)
        monitor.receivedSubscription()
        monitor.requested(.max(2))
        monitor.didDeliverValue(monitor.willDeliverValue())
        monitor.didDeliverValue(monitor.willDeliverValue())
        monitor.didTerminate(monitor.willTerminate(failure: nil))
        monitor.cancelled()
        #expect(recorder.calls == [.register(.subscription, label: "feed", test: test), .unregister(1)])
        #expect(monitor.test == test && monitor.token == ResourceToken(rawValue: 1))
    }

    @Test func grammarFindingsAreReportedAsDraftsNamingTheStream() {
        let recorder = FakeRecorder(test: test)
        let monitor = StreamMonitor(recorder: recorder, label: label, allocationStack: StackID(rawValue: 7))
        monitor.receivedSubscription()
        monitor.requested(.max(1))
        monitor.didDeliverValue(monitor.willDeliverValue())
        monitor.didDeliverValue(monitor.willDeliverValue())  // beyond demand
        monitor.didTerminate(monitor.willTerminate(failure: nil))
        monitor.didDeliverValue(monitor.willDeliverValue())  // after completion
        #expect(
            recorder.calls == [
                .register(.subscription, label: "feed", test: test), .report(.demandExceeded), .unregister(1),
                .report(.valueAfterTermination),
            ])
        for draft in recorder.drafts {
            #expect(draft.label == "feed" && draft.test == test && draft.resourceKind == .subscription)
            #expect(draft.allocationStack == StackID(rawValue: 7))
        }
    }

    @Test func aCancelBeforeAnyValueIsRememberedOnlyWithAnAllocationStack() {
        let options = StreamMonitor.Options(prematureCancellationMarkers: ["AnyCancellable.deinit"])
        let recorder = FakeRecorder()
        StreamMonitor(recorder: recorder, label: label, options: options, allocationStack: StackID(rawValue: 3))
            .cancelled()
        // no stack: nothing to decide with
        StreamMonitor(recorder: recorder, label: label, options: options).cancelled()
        #expect(
            recorder.calls.filter { if case .earlyCancel = $0 { true } else { false } } == [.earlyCancel(label: "feed")]
        )
    }

    @Test func aTrapComesAfterTheReportReturnedAndAfterTheEventsBookkeeping() {
        let seen = Mutex<(values: Int, state: StreamMonitor.State)?>(nil)
        let box = Mutex<StreamMonitor?>(nil)
        let recorder = FakeRecorder(traps: true) {
            if let monitor = box.withLock({ $0 }) {
                seen.withLock { $0 = (monitor.valuesDelivered, monitor.state) }
            }
        }
        let monitor = StreamMonitor(recorder: recorder, label: label)
        box.withLock { $0 = monitor }
        // A value before the subscription, beyond demand: two findings, one trap, after both.
        let delivery = monitor.willDeliverValue()
        #expect(
            recorder.calls == [
                .register(.subscription, label: "feed", test: .none), .report(.eventBeforeSubscription), .trap(0),
            ])
        #expect(seen.withLock { $0?.values } == 1, "the value was counted before the trap")
        #expect(recorder.state.withLock { !$0.trappedInsideReport })
        monitor.didDeliverValue(delivery)
        // A termination before the subscription: the stream is already finished when it traps.
        monitor.didTerminate(monitor.willTerminate(failure: nil))
        #expect(Array(recorder.calls.suffix(3)) == [.report(.eventBeforeSubscription), .unregister(1), .trap(1)])
        #expect(seen.withLock { $0?.state } == .finished)
        #expect(recorder.state.withLock { !$0.trappedInsideReport })
        box.withLock { $0 = nil }
    }

    @Test func aProbeRegistersEachActionAndTrapsAfterItsBookkeeping() {
        let recorder = FakeRecorder(traps: true, test: test)
        let probe = SchedulerProbe(recorder: recorder, label: DiagnosticLabel("ui"), expectation: .mainQueue)
        let action = probe.willSchedule()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let run = probe.willRun(action)  // off the main queue: a finding, then the trap
            probe.didRun(action, run)
            done.signal()
        }
        done.wait()
        #expect(
            recorder.calls == [
                .register(.scheduledAction, label: "ui", test: test), .report(.wrongThread), .trap(0), .unregister(1),
            ])
        #expect(recorder.drafts.first?.resourceKind == .scheduledAction && recorder.drafts.first?.label == "ui")
        #expect(recorder.state.withLock { !$0.trappedInsideReport })
        let summary = probe.summary()
        #expect(
            summary.scheduled == 1 && summary.executed == 1 && summary.threadViolations == 1 && summary.pending == 0)
    }

    @Test func aRepeatingActionIsAnActiveTimerUntilCancelled() {
        let recorder = FakeRecorder()
        let probe = SchedulerProbe(recorder: recorder, label: DiagnosticLabel("tick"))
        let timer = probe.willSchedule(repeating: true)
        #expect(probe.summary().activeRepeating == 1)
        probe.didRun(timer, probe.willRun(timer))
        #expect(probe.summary().activeRepeating == 1 && recorder.calls.count == 1)
        probe.didCancel(timer)
        probe.didCancel(timer)
        #expect(probe.summary().activeRepeating == 0 && probe.summary().cancelled == 1)
        #expect(recorder.calls == [.register(.timer, label: "tick", test: .none), .unregister(1)])
    }
}
