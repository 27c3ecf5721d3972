import ReactiveDiagnosticsTestSupport
import Foundation
import ReactiveDiagnostics
import ReactiveDiagnosticsXCTest
import Testing
import XCTest

/// `install()` and the test's own `tearDown()`: XCTest runs `install()`'s teardown block
/// before `tearDown()`, so a test that keeps subscriptions in its properties (the
/// `cancellables` idiom) has its lifetime judged once `tearDown()` has run. Real OpenCombine
/// code under global instrumentation, in child XCTest processes (``TearDownFixtures``).
@Suite("XCTest: install() and tearDown()", .enabled(if: childProcessesAreSupported))
struct TearDownTests {
    static let fixtures = "ReactiveDiagnosticsXCTestTests.TearDownFixtures"

    @Test func aSinkKeptInCancellablesAndClearedInTearDownIsNoLeak() async throws {
        let run = try await ChildProcess.runXCTest("\(Self.fixtures)/testStoresItsSinkInCancellables")
        #expect(run.status == 0, "\(run.output)")
        let report = try run.report()
        #expect(report.findings.isEmpty, "\(report.findings.map(\.message))")
        #expect(
            report.run.tests == [
                TestRecord(name: "\(Self.fixtures)/testStoresItsSinkInCancellables", findings: 0, failed: false)
            ])
        #expect(
            report.ledger.kinds.first { $0.kind == "subscription" }.map { $0.registered > 0 } == true,
            "the subscription was counted: \(report.ledger.kinds)")
    }

    @Test func aLeakBeyondTearDownIsReportedAfterTearDown() async throws {
        let run = try await ChildProcess.runXCTest("\(Self.fixtures)/testKeepsASinkBeyondTearDown")
        #expect(run.status == 0, "XCTest cannot fail a test once tearDown() has run: \(run.output)")
        let test = "\(Self.fixtures)/testKeepsASinkBeyondTearDown"
        let report = try run.report()
        let finding = try #require(report.findings.first)
        #expect(report.findings.count == 1, "\(report.findings.map(\.message))")
        #expect(finding.kind == "leakedSubscription" && finding.label == "PassthroughSubject<Int, Never>")
        #expect(finding.test == test && finding.suppressedBy == nil)
        #expect(
            report.firstUserFunction(ofStack: finding.allocationStack)
                == "ReactiveDiagnosticsXCTestTests.TearDownFixtures.testKeepsASinkBeyondTearDown() -> ()")
        #expect(report.run.tests == [TestRecord(name: test, findings: 1, failed: false)])
        #expect(
            run.standardError.contains(
                "error: TearDownFixtures.testKeepsASinkBeyondTearDown : ReactiveDiagnostics: leakedSubscription [error]"
            ),
            "\(run.output)")
        #expect(run.standardError.contains("found after tearDown()"), "\(run.output)")
    }

    @Test func aTestCaseThatKeepsNothingStillFailsAtTheTeardownBlock() async throws {
        let run = try await ChildProcess.runXCTest("ReactiveDiagnosticsXCTestTests.NoPropertyFixtures/testLeaksASink")
        #expect(run.status != 0, "\(run.output)")
        #expect(
            run.standardOutput.contains(
                "error: NoPropertyFixtures.testLeaksASink : ReactiveDiagnostics: leakedSubscription [error]"),
            "\(run.output)")
        let report = try run.report()
        #expect(report.findings.map(\.kind) == ["leakedSubscription"])
        #expect(report.run.tests.map(\.failed) == [true])
    }
}

/// Which test cases keep something `tearDown()` could release.
@Suite("XCTest: what a test case keeps")
struct TestCaseReferencesTests {
    final class Empty: XCTestCase {}

    final class Values: XCTestCase {
        var count = 3
        var title = "feed"
        var empty: [AnyObject] = []
        var none: AnyObject?
        var pair = (1, "two")
    }

    final class Holder {}

    final class Kept: XCTestCase {
        var cancellables: Set<ObjectIdentifier> = []
        var objects: [Holder] = [Holder()]
    }

    final class Closure: XCTestCase {
        var onEvent: () -> Void = {}
    }

    struct Wrapper {
        var inner: Holder?
    }

    final class Nested: XCTestCase {
        var wrapper = Wrapper(inner: Holder())
    }

    class Base: XCTestCase {
        var model: Holder? = Holder()
    }

    final class Derived: Base {}

    @Test func testCasesWithoutReferencesKeepNothing() {
        #expect(!TestCaseReferences.keepsReferences(Empty(name: "t", testClosure: { _ in })))
        #expect(!TestCaseReferences.keepsReferences(Values(name: "t", testClosure: { _ in })))
    }

    @Test func objectsClosuresAndNestedObjectsAreKept() {
        #expect(TestCaseReferences.keepsReferences(Kept(name: "t", testClosure: { _ in })))
        #expect(TestCaseReferences.keepsReferences(Closure(name: "t", testClosure: { _ in })))
        #expect(TestCaseReferences.keepsReferences(Nested(name: "t", testClosure: { _ in })))
        #expect(
            TestCaseReferences.keepsReferences(Derived(name: "t", testClosure: { _ in })),
            "a base class's properties count")
    }

    @Test func valuesTooDeepToLookIntoCountAsKept() {
        var value: Any = [1]
        for _ in 0..<TestCaseReferences.depthLimit + 1 {
            value = [value]
        }
        #expect(TestCaseReferences.keepsReferences(value, depth: 0))
        #expect(!TestCaseReferences.keepsReferences([[1]], depth: 0))
    }
}
