import ConcurrencyDiagnostics
import Foundation
import ReactiveDiagnosticsTesting
import Synchronization
import Testing

/// Unstructured tasks seen with the app's code unchanged, through the test glue: each task the
/// test or the app started is followed where task starts can be seen (Linux), and one still
/// running at the test's end is a finding at its `Task {` line; elsewhere the glue's task-local
/// marker, which the tasks inherit, still counts them.
@Suite struct UnstructuredTaskTests {
    final class Issues: Sendable {
        private let state = Mutex<[Issue]>([])
        func match(_ issue: Issue) -> Bool {
            state.withLock { $0.append(issue) }
            return true
        }
        var all: [Issue] { state.withLock { $0 } }
    }

    /// Runs `body` in the trait's scope for the current test case, as Swift Testing would.
    func inScope(_ engine: DiagnosticsEngine, _ body: @Sendable () async throws -> Void) async throws {
        let test = try #require(Test.current)
        let testCase = try #require(Test.Case.current)
        try await DiagnosedTrait.diagnosed(engine: engine).provideScope(for: test, testCase: testCase, performing: body)
    }

    @Test func aTaskTheAppStartedAndNeverEndedFailsTheTest() async throws {
        let engine = makeEngine { $0.resolvesSourceLines = true }  // the failure placed at the app's line
        let issues = Issues()
        let clock = ClockModel()
        try await withKnownIssue {
            try await inScope(engine) {
                clock.start()  // no diagnostics in the app: its own stream, its own Task
                clock.send()
                await eventually("the clock ticked") { clock.count == 1 }
            }
        } matching: {
            issues.match($0)
        }
        #expect(issues.all.count == 1)
        let comment = issues.all.first?.comments.first?.rawValue ?? ""
        let expected =
            DiagnosticsEngine.seesUnstructuredTasks
            ? "ReactiveDiagnostics: leakedResource [error]: task 'Task { … }' still running at the end of the test"
            : "ReactiveDiagnostics: leakedResource [error]: an unstructured task started during the test"
        #expect(comment.hasPrefix(expected), "\(comment)")
        let finding = try #require(engine.findings().first)
        #expect(finding.kind == .leakedResource && finding.resourceKind == .task)
        if DiagnosticsEngine.seesUnstructuredTasks {
            // At the app's `Task {` line, the loop's function as where it waits.
            expectStack(engine, finding.allocationStack, contains: "ClockModel.start")
            expectStack(engine, finding.relatedStack, contains: "ClockModel.start")
            let placed = try #require(issues.all.first?.sourceLocation)
            #expect(placed.fileName == "AppModels.swift", "placed at \(placed)")
        }
        saveDescription(finding, engine)
        #expect(finding.test.name?.hasSuffix("aTaskTheAppStartedAndNeverEndedFailsTheTest()") == true)
    }

    @Test func aTaskThatIsCancelledOrEndsIsNoFinding() async throws {
        let engine = makePatientEngine()
        let clock = ClockModel()
        try await inScope(engine) {
            clock.startKeepingTheTask()
            clock.send()
            await eventually("the clock ticked") { clock.count == 1 }
            clock.stop()  // the fix: keep the task, cancel it
            let quick = Task { 1 + 1 }  // ends on its own
            _ = await quick.value
            Task { try? await Task.sleep(for: .milliseconds(20)) }  // ends within the settle time
            Task.detached { try? await Task.sleep(for: .milliseconds(20)) }  // detached, ends within the settle time
        }
        #expect(engine.findings().isEmpty, "\(engine.findings().map { engine.describe($0) })")
    }

    @Test func aTaskExplainedByAnotherFindingIsNotReportedTwice() async throws {
        let engine = makeEngine()
        let issues = Issues()
        let (prices, feed) = AsyncStream.makeDiagnosedStream("prices", of: Int.self, engine: engine)
        try await withKnownIssue {
            try await inScope(engine) {
                TickerModel(prices: prices).start()
                feed.yield(1)
                await waitForIterations(1, in: engine)
            }
        } matching: {
            issues.match($0)
        }
        feed.finish()
        #expect(engine.findings().map(\.kind) == [.leakedSubscription], "the iteration explains the task")
    }
}
