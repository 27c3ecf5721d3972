import ConcurrencyDiagnostics
import Dispatch
import Foundation
import Testing

/// An actor whose executor the tests choose, as an app would only in its tests.
actor Ledger {
    let executor: DiagnosticSerialExecutor
    private var entries: [Int] = []

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    init(executor: DiagnosticSerialExecutor) {
        self.executor = executor
    }

    func append(_ entry: Int) -> Bool {
        entries.append(entry)
        return executor.isCurrent
    }

    var count: Int { entries.count }

    /// Work that blocks the actor (and every caller waiting for it).
    func recompute(blockingFor semaphore: DispatchSemaphore) {
        semaphore.wait()
    }
}

/// The diagnostic executors: what they count and measure, and what they find.
@Suite struct ExecutorTests {
    @Test func aSerialExecutorRunsAnActorsJobsAndCountsThem() async throws {
        let engine = makePatientEngine()
        let executor = DiagnosticSerialExecutor("ledger", engine: engine)
        let ledger = Ledger(executor: executor)
        let outcome = await runTest(engine) {
            for entry in 1...20 {
                #expect(await ledger.append(entry), "the actor's code runs on its executor")
            }
            #expect(await ledger.count == 20)
            await ledger.assumeIsolatedCheck()
        }
        expectNoFindings(outcome, engine)
        await eventually("every job ran") { executor.summary.pending == 0 }
        let summary = executor.summary
        #expect(summary.label == "ledger" && summary.scheduled >= 21 && summary.executed == summary.scheduled)
        #expect(summary.latency.count == summary.executed && summary.duration.count == summary.executed)
        #expect(summary.threads.map(\.count).reduce(0, +) == summary.executed)
        #expect(!executor.isCurrent, "the test itself is not one of its jobs")
        #expect(engine.schedulerSummaries().contains { $0.label == "ledger" }, "the report's scheduler section has it")
    }

    @Test func aTaskExecutorRunsChildTasksWithItsPreference() async throws {
        let engine = makePatientEngine()
        let executor = DiagnosticTaskExecutor("decoding", engine: engine)
        let outcome = await runTest(engine) {
            let onExecutor = await withTaskExecutorPreference(executor) {
                await withTaskGroup(of: Bool.self) { group in
                    for _ in 0..<8 {
                        group.addTask { executor.isCurrent }
                    }
                    return await group.reduce(true) { $0 && $1 }
                }
            }
            #expect(onExecutor, "child tasks inherit the preference")
        }
        expectNoFindings(outcome, engine)
        await eventually("every job ran") { executor.summary.pending == 0 }
        #expect(executor.summary.executed >= 8)
    }

    @Test func aLongJobIsFound() async throws {
        let engine = makeEngine()
        var made: DiagnosticSerialExecutor?
        let outcome = await runTest(engine) {
            // Made in the test: jobs are attributed to the test that made their executor.
            let executor = DiagnosticSerialExecutor("ledger", longJobThreshold: .milliseconds(20), engine: engine)
            made = executor
            let ledger = Ledger(executor: executor)
            let release = DispatchSemaphore(value: 0)
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(80)) { release.signal() }
            await ledger.recompute(blockingFor: release)
        }
        let finding = onlyFinding(outcome, .longAction)
        // The job's stack is where its executor was made: here, in the test.
        expectEvidence(finding, engine, kind: .longAction, label: "ledger", outcome: outcome)
        #expect(Int(finding?.details["durationNanos"] ?? "") ?? 0 >= 20_000_000)
        #expect(made?.summary.longActions == 1)
    }

    @Test func aJobStillPendingAtTheEndIsFound() async throws {
        let engine = makeEngine()
        let release = DispatchSemaphore(value: 0)
        var made: DiagnosticSerialExecutor?
        let outcome = await runTest(engine) {
            let executor = DiagnosticSerialExecutor("ledger", engine: engine)
            made = executor
            let ledger = Ledger(executor: executor)
            Task { await ledger.recompute(blockingFor: release) }  // blocks the actor until released
            await eventually("the actor is busy") { executor.summary.executed >= 1 }
            Task { _ = await ledger.append(1) }  // waits behind it
            await eventually("a job is waiting") { executor.summary.scheduled > executor.summary.executed }
        }
        release.signal()
        let findings = outcome.findings.filter { $0.kind == .pendingAction }
        #expect(
            !findings.isEmpty && findings.allSatisfy { $0.label == "ledger" && $0.test == outcome.test },
            "\(outcome.findings.map { engine.describe($0) })")
        expectEvidence(findings.first, engine, kind: .pendingAction, label: "ledger", outcome: outcome)
        await eventually("the executor drained") { made?.summary.pending == 0 }
    }

    @Test func workExpectedOnAnExecutorThatRunsElsewhereIsFound() async throws {
        let engine = makeEngine()
        let executor = DiagnosticSerialExecutor("ledger", engine: engine)
        let ledger = Ledger(executor: executor)
        let outcome = await runTest(engine) {
            let (stream, continuation) = AsyncStream.makeDiagnosedStream(
                "ledger entries", of: Int.self, expecting: .executor(executor), engine: engine)
            #expect(await ledger.append(0))
            continuation.yield(1)  // yielded by the test, not by the actor
            continuation.finish()
            #expect(await countElements(of: stream) == 1)
        }
        let findings = outcome.findings.filter { $0.kind == .wrongThread }
        #expect(findings.first?.details["expected"] == "executor 'ledger'")
        expectEvidence(findings.first, engine, kind: .wrongThread, label: "ledger entries", outcome: outcome)
    }
}

extension Ledger {
    /// `assumeIsolated` asks the executor, through `checkIsolated()`, whether it runs the caller.
    func assumeIsolatedCheck() {
        assumeIsolated { ledger in
            _ = ledger.entries.count
        }
    }
}
