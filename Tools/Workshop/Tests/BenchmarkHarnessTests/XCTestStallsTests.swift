import Testing
import _ReactiveDiagnosticsBenchmarkHarness

/// The long suite's stalled tests, read from XCTest's output.
@Suite("XCTest stalls")
struct XCTestStallsTests {
    @Test func testsTimedAtNinetyMillisecondsOrMoreAreStallsAndNothingElseCounts() {
        let output = """
            Test Suite 'Generated00Tests' started at 2026-11-29 01:04:33.536
            Test Case 'Generated00Tests.testScreen0' started at 2026-11-29 01:04:33.540
            Test Case 'Generated00Tests.testScreen0' passed (0.008 seconds)
            Test Case 'Generated00Tests.testScreen1' passed (0.101 seconds)
            Test Case 'Generated00Tests.testScreen2' failed (0.102 seconds)
            Test Case 'Generated00Tests.testScreen3' passed (0.089 seconds)
            Test Suite 'Generated00Tests' passed at 2026-11-29 01:04:34.536.
            \t Executed 4 tests, with 1 failure (0 unexpected) in 0.300 (0.300) seconds
            """
        let stalls = XCTestStalls(output: output)
        #expect(stalls.count == 2)
        #expect(abs(stalls.seconds - 0.203) < 1e-9)
        #expect(XCTestStalls(output: "") == XCTestStalls(output: "Test Case 'A.b' started at 2026-11-29"))
    }
}
