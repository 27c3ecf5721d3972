import Foundation
import ReactiveDiagnostics
import Testing

extension RxIntegrationTests {
    /// The documented setups find RxSwift leaks in app code left as it is: each runs its
    /// fixtures (Fixtures/HookFixtures.swift) in a child process, as a user's test run would,
    /// and reads the output and the report.
    @Suite("Documented setup finds RxSwift leaks")
    struct DocumentedSetupTests {
        /// What both setups must show: the strong-self view model and the interval leak, each
        /// attributed to its test and placed at its subscribing line; the weak view model is clean.
        func expectLeaks(_ run: ChildRun, tests: (strong: String, clock: String, weak: String)) throws {
            #expect(run.status != 0, "the leaking tests fail:\n\(run.output)")
            let report = try run.report()
            let leaks = report.findings.filter { $0.kind == "leakedSubscription" }
            #expect(report.findings.count == 2 && leaks.count == 2, "\(report.findings.map(\.message))")
            for (test, site, function) in [
                (tests.strong, "strong-self", "HeadlinesViewModel.init"),
                (tests.clock, "interval", "TickingClock.start"),
            ] {
                let finding = try #require(
                    leaks.first { $0.test == test }, "no leak attributed to \(test): \(run.output)")
                #expect(finding.label == "subscribe(onNext:)")
                let frame = try #require(report.firstUserFrame(ofStack: finding.allocationStack))
                #expect(frame.function?.contains(function) == true, "\(frame.function ?? "?")")
                if let file = frame.file {
                    let line = try siteLine(site, in: appCodeFile)
                    #expect(file == appCodeFile && frame.line == line, "\(file):\(frame.line ?? 0)")
                    // XCTest prints the failure's whole path; Swift Testing the file's name, at "recorded an issue at".
                    let name = URL(fileURLWithPath: appCodeFile).lastPathComponent
                    #expect(
                        run.output.contains("\(appCodeFile):\(line)")
                            || run.output.contains("recorded an issue at \(name):\(line):"),
                        "the failure is placed at the subscribing line:\n\(run.output)")
                }
            }
            let records = Dictionary(uniqueKeysWithValues: report.run.tests.map { ($0.name, $0.failed) })
            #expect(records == [tests.strong: true, tests.clock: true, tests.weak: false], "\(records)")
            #expect(
                run.output.contains(
                    "ReactiveDiagnostics: leakedSubscription [error]: subscription 'subscribe(onNext:)' still alive"))
        }

        @Test func diagnosedTestCaseAndInstall() throws {
            let run = try ChildRun.xctest("RxDiagnosticsTests.HookXCTestFixtures")
            let prefix = "RxDiagnosticsTests.HookXCTestFixtures/"
            try expectLeaks(
                run,
                tests: (
                    prefix + "testHeadlinesViewModel", prefix + "testTickingClock",
                    prefix + "testWeakHeadlinesViewModel"
                ))
        }

        @Test func diagnosedTraitAndInstall() throws {
            let run = try ChildRun.swiftTesting("HookTraitFixtures")
            let prefix = "RxDiagnosticsTests.HookTraitFixtures/"
            try expectLeaks(
                run,
                tests: (
                    prefix + "headlinesViewModel()", prefix + "tickingClock()",
                    prefix + "weakHeadlinesViewModel()"
                ))
        }
    }
}
