import ConcurrencyDiagnostics
import Foundation
import ReactiveDiagnosticsSymbolication
import ReactiveDiagnosticsTestSupport
import ReactiveDiagnosticsTesting
import ReactiveDiagnosticsXCTest
import Synchronization
import Testing
import XCTest

/// The test glue, unchanged, with Swift Concurrency code: the `.diagnosed` trait's scope run by
/// hand around an async body (as Swift Testing would), and the serial attribution XCTest uses.
@Suite struct TestGlueTests {
    /// Collects what the known-issue matcher saw.
    final class Issues: Sendable {
        private let state = Mutex<[Issue]>([])
        func match(_ issue: Issue) -> Bool {
            state.withLock { $0.append(issue) }
            return true
        }
        var all: [Issue] { state.withLock { $0 } }
    }

    @Test func theTraitFailsTheTestAtTheLoopThatStillWaits() async throws {
        let engine = makeEngine { $0.resolvesSourceLines = true }
        let issues = Issues()
        let (prices, feed) = AsyncStream.makeDiagnosedStream("prices", of: Int.self, engine: engine)
        let test = try #require(Test.current)
        let testCase = try #require(Test.Case.current)
        try await withKnownIssue {
            try await DiagnosedTrait.diagnosed(engine: engine).provideScope(for: test, testCase: testCase) {
                let model = TickerModel(prices: prices)  // its task inherits the test's identity
                model.start()
                feed.yield(1)
                await eventually("the price is shown") { model.price == 1 }
                await waitForIterations(1, in: engine)
            }
        } matching: {
            issues.match($0)
        }
        feed.finish()
        let issue = try #require(issues.all.first)
        #expect(issues.all.count == 1)
        let comment = issue.comments.first?.rawValue ?? ""
        #expect(
            comment.hasPrefix("ReactiveDiagnostics: leakedSubscription [error]: iteration of 'prices' still waiting"),
            "\(comment)")
        #expect(
            comment.contains("closure #1 () async -> () in ConcurrencyDiagnosticsTests.TickerModel.start()"),
            "\(comment)")
        #expect(comment.contains("  stream created at:\n"), "\(comment)")
        // Placed at the app's `for await` line, read from the async resume point's line table.
        if SourceLineResolver.shared.symbolizer != nil {
            let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
                "Support/AppModels.swift"
            ).path
            let location = try #require(issue.sourceLocation)
            #expect(location.fileID == "ConcurrencyDiagnosticsTests/AppModels.swift")
            #expect(location.line == (try siteLine("ticker loop", in: file)))
        }
    }

    @Test func theWorkOfAnUnstructuredTaskBelongsToTheSerialTest() async throws {
        let engine = makeEngine()
        // XCTest runs one test at a time: its test is the engine's serial test, seen from any task.
        let checkpoint = engine.beginTest(named: "XCTestStyle.testTicker", serial: true)
        let (prices, feed) = AsyncStream.makeDiagnosedStream("prices", of: Int.self, engine: engine)
        let model = TickerModel(prices: prices)
        Task.detached { model.start() }
        feed.yield(1)
        await eventually("the price is shown") { model.price == 1 }
        await waitForIterations(1, in: engine)
        let outcome = await engine.finishTest(checkpoint)
        feed.finish()
        let finding = onlyFinding(outcome, .leakedSubscription)
        #expect(finding?.test == checkpoint.test)
    }
}

/// XCTest with the `DiagnosedTestCase` base class: async tests of correct Swift Concurrency
/// code pass (the check runs after each test, settles, and finds nothing).
final class DiagnosedConcurrencyXCTests: DiagnosedTestCase {
    static let engine = quietEngine(settle: .seconds(120))

    override class var diagnosticsEngine: DiagnosticsEngine {
        engine
    }

    func testAFinishedStreamAndAResumedContinuationPass() async {
        let engine = Self.engine
        let (prices, feed) = AsyncStream.makeDiagnosedStream("prices", of: Int.self, engine: engine)
        let model = TickerModel(prices: prices)
        let task = model.startCancellable()
        feed.yield(3)
        feed.finish()
        await task.value
        XCTAssertEqual(model.price, 3)
        let value = await withDiagnosedContinuation("answer", engine: engine) { $0.resume(returning: 42) }
        XCTAssertEqual(value, 42)
    }

    func testADiagnosedTaskThatEndsPasses() async {
        let task = Task.diagnosed("work", engine: Self.engine) { 1 + 1 }
        let value = await task.value
        XCTAssertEqual(value, 2)
    }
}
