import Testing
import XCTest

@testable import ReactiveDiagnosticsXCTest

/// The name a test is reported under: its class (`String(reflecting:)`) and its method, read
/// from either XCTest's form of the test's name.
@Suite("Test names")
struct TestNameTests {
    @Test func theMethodIsReadFromEitherXCTestsName() {
        #expect(TestCaseDiagnostics.methodName("-[FeedTests testRefresh]") == "testRefresh")
        #expect(TestCaseDiagnostics.methodName("FeedTests.testRefresh") == "testRefresh")
        #expect(TestCaseDiagnostics.methodName("NewsAppTests.FeedTests.testRefresh") == "testRefresh")
        #expect(TestCaseDiagnostics.methodName("testRefresh") == "testRefresh")
        #expect(TestCaseDiagnostics.methodName("FeedTests.testÜberschrift") == "testÜberschrift")
        #expect(TestCaseDiagnostics.methodName("") == "")
    }

    #if !canImport(Darwin)
    // swift-corelibs-xctest's initializer (Apple's XCTest makes a test case from a selector).
    @Test func aTestIsNamedByItsClassAndMethod() {
        final class FeedTests: XCTestCase {
            func testRefresh() {}
        }
        let test = FeedTests(name: "FeedTests.testRefresh") { _ in }
        let name = TestCaseDiagnostics.testName(of: test)
        #expect(name == String(reflecting: FeedTests.self) + "/testRefresh")
        // The class's name is kept, not made again: the same for a second test of the class.
        #expect(TestCaseDiagnostics.testName(of: FeedTests(name: "FeedTests.testRefresh") { _ in }) == name)
    }
    #endif
}
