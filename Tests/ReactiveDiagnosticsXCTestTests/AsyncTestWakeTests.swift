import Foundation
import ReactiveDiagnostics
import ReactiveDiagnosticsTestSupport
import Testing

/// The wake for swift-corelibs-xctest's async-test waiter: runs ``AsyncWakeFixtures`` in a
/// child XCTest process.
@Suite(
    "XCTest: the end of a main-thread task wakes the main run loop",
    .enabled(if: childProcessesAreSupported && DiagnosticsEngine.seesUnstructuredTasks && !isDarwin))
struct AsyncTestWakeTests {
    static let fixtures = "ReactiveDiagnosticsXCTestTests.AsyncWakeFixtures"

    @Test func aTaskEndWakesTheRunLoopAndNothingElseDoes() async throws {
        let run = try await ChildProcess.runXCTest(Self.fixtures)
        #expect(run.status == 0, "\(run.output)")
        let out = run.standardOutput
        #expect(
            out.contains("Test Case 'AsyncWakeFixtures.testTheEndOfATaskStartedOnTheMainThreadWakesTheRunLoop' passed"),
            "\(run.output)")
        #expect(
            out.contains("Test Case 'AsyncWakeFixtures.testNoTaskEndingLeavesTheRunLoopAlone' passed"), "\(run.output)")
    }
}

#if canImport(Darwin)
private let isDarwin = true
#else
private let isDarwin = false
#endif
