import ReactiveDiagnosticsTestSupport
import Foundation
import ReactiveDiagnostics
import ReactiveDiagnosticsSymbolication
import Testing

/// A test function that keeps its cancellable to the end of its own scope lets it go on
/// purpose: no `prematureCancellation` (found as a false finding by the soak of OpenCombine's
/// suite, `PublisherTests.testSubjectSubscriber`). `_ = publisher.sink { … }` still is one.
/// Real OpenCombine code under global instrumentation, in child XCTest processes
/// (``ScopeFixtures``). Telling the two apart needs file:line, from llvm-symbolizer.
@Suite(
    "XCTest: cancellables a test keeps to the end of a scope",
    .enabled(if: childProcessesAreSupported && SourceLineResolver.shared.symbolizer != nil))
struct ScopeTests {
    static let fixtures = "ReactiveDiagnosticsXCTestTests.ScopeFixtures"

    @Test(arguments: ["testKeepsItsSinkToTheEnd", "testKeepsItsSinkForABlock"])
    func aCancellableKeptToTheEndOfAScopeIsNoPrematureCancellation(test: String) async throws {
        let run = try await ChildProcess.runXCTest("\(Self.fixtures)/\(test)")
        #expect(run.status == 0, "\(run.output)")
        let report = try run.report()
        #expect(report.findings.isEmpty, "\(report.findings.map(\.message))")
        #expect(report.ledger.kinds.first { $0.kind == "subscription" }.map { $0.registered > 0 } == true)
    }

    @Test func aCancellableDroppedOnItsOwnLineIsAPrematureCancellation() async throws {
        let run = try await ChildProcess.runXCTest("\(Self.fixtures)/testDropsItsSinkAtOnce")
        #expect(run.status != 0, "\(run.output)")
        let report = try run.report()
        let finding = try #require(report.findings.first)
        #expect(report.findings.map(\.kind) == ["prematureCancellation"])
        #expect(finding.label == "PassthroughSubject<Int, Never>")
        #expect(finding.test == "\(Self.fixtures)/testDropsItsSinkAtOnce")
        #expect(
            report.firstUserFunction(ofStack: finding.allocationStack)
                == "ReactiveDiagnosticsXCTestTests.ScopeFixtures.testDropsItsSinkAtOnce() -> ()")
    }
}
