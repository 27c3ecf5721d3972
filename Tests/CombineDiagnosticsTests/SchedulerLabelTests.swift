@_spi(Integration) import ReactiveDiagnostics
import CombineDiagnostics
import Dispatch
import Foundation
import OpenCombineShim
import Testing

extension CombineAdapterTests {
    /// A suite that makes a diagnosed scheduler per test keeps one row (and one set of
    /// statistics) per label, not one per scheduler.
    @Suite struct SchedulerLabels {
        /// A view model that makes its scheduler, as the guides show, and is dropped after use.
        final class ViewModel {
            let scheduler: DiagnosticScheduler<DispatchQueue>
            var value = 0

            init(label: String, engine: DiagnosticsEngine, queue: DispatchQueue) {
                scheduler = queue.diagnosed(label, engine: engine)
            }

            func refresh(_ done: DispatchGroup) {
                done.enter()
                scheduler.schedule {
                    self.value += 1
                    done.leave()
                }
            }
        }

        @Test func thousandsOfShortLivedSchedulersAreOneRowPerLabel() throws {
            let engine = makeEngine()
            let queue = DispatchQueue(label: "SchedulerLabels")
            let done = DispatchGroup()
            for index in 0..<3_000 {
                ViewModel(label: "screen-\(index % 10)", engine: engine, queue: queue).refresh(done)
            }
            #expect(done.wait(timeout: .now() + 30) == .success)
            let rows = engine.schedulerSummaries()
            #expect(rows.count == 10, "\(rows.map(\.label))")
            #expect(Set(rows.map(\.label)) == Set((0..<10).map { "screen-\($0)" }))
            #expect(rows.allSatisfy { $0.instances == 300 && $0.scheduled == 300 && $0.executed == 300 })
            #expect(rows.allSatisfy { $0.pending == 0 })
            // The report has the same rows.
            let report = try DiagnosticsReport.decode(try engine.makeReport().encoded(), source: "report")
            #expect(report.schedulers.count == 10)
            #expect(report.schedulers.map { $0.instances ?? 1 }.reduce(0, +) == 3_000)
        }

        /// The probes of dropped schedulers are released: each is held by its schedulers and its
        /// actions only, and a quiet lane gives back the ended actions' probes at the second
        /// checkpoint after its thread took its last action.
        @Test func droppedSchedulersAreReleased() {
            let engine = makeEngine()
            let queue = DispatchQueue(label: "SchedulerLabels.released")
            let done = DispatchGroup()
            // On a thread of its own, so that no other test takes actions from its lane.
            done.enter()
            let thread = Thread {
                for index in 0..<3_000 {
                    ViewModel(label: "dropped-\(index % 10)", engine: engine, queue: queue).refresh(done)
                }
                done.leave()
            }
            thread.start()
            #expect(done.wait(timeout: .now() + 30) == .success)
            // The last block left the group before it returned: let the serial queue run it to its end.
            queue.sync {}
            // The thread may still be dropping its last view model: ask until it has (bounded;
            // under load a worker can be kept off the processor for a while).
            let kept = ViewModel(label: "kept", engine: engine, queue: queue)
            var live = engine.liveSchedulerProbes()
            for _ in 0..<1_000 where live > 1 {
                engine.reclaimQuietLanes()
                engine.reclaimQuietLanes()
                live = engine.liveSchedulerProbes()
                if live > 1 { Thread.sleep(forTimeInterval: 0.01) }
            }
            #expect(live == 1, "probes of dropped schedulers still alive: \(live - 1)")
            let rows = engine.schedulerSummaries().filter { $0.label.hasPrefix("dropped-") }
            #expect(rows.count == 10 && rows.allSatisfy { $0.instances == 300 && $0.executed == 300 })
            withExtendedLifetime(kept) {}
        }

        @Test func aPendingActionOfOneSchedulerIsStillFoundAmongItsLabel() {
            let engine = makeEngine()
            let queue = DispatchQueue(label: "SchedulerLabels.suspended")
            queue.suspend()
            let outcome = runTest(engine) {
                for _ in 0..<5 {
                    _ = queue.diagnosed("shared", engine: engine)
                }
                queue.diagnosed("shared", engine: engine).schedule {}
            }
            queue.resume()
            let pending = outcome.findings.filter { $0.kind == .pendingAction }
            #expect(pending.count == 1 && pending.first?.label == "shared", "\(outcome.findings)")
            #expect(engine.schedulerSummaries().first?.instances == 6)
        }
    }
}
