import Dispatch
import Foundation
@_spi(Integration) import ReactiveDiagnostics
import ReactiveDiagnosticsTesting
import Synchronization
import ReactiveDiagnosticsTestSupport
import Testing
import _ReactiveDiagnosticsSupport

/// The `.diagnosed` trait in this process: its scope is run by hand around a body, on a
/// private engine, inside `withKnownIssue` to catch and inspect the issues it records.
@Suite("Swift Testing: .diagnosed")
struct DiagnosedTraitTests {
    /// Collects what the known-issue matcher saw.
    final class Issues: Sendable {
        private let state = LockedValue<[Issue]>([])
        func match(_ issue: Issue) -> Bool {
            state.withLock { $0.append(issue) }
            return true
        }
        var all: [Issue] { state.withLock { $0 } }
    }

    /// Runs `body` in the trait's scope for the current test case, as Swift Testing would.
    func inScope(_ trait: DiagnosedTrait, _ body: @Sendable () async throws -> Void) async throws {
        let test = try #require(Test.current)
        let testCase = try #require(Test.Case.current)
        try await trait.provideScope(for: test, testCase: testCase, performing: body)
    }

    @Test func aLeakIsAnIssueAtItsLineWithTheFindingAndItsStack() async throws {
        let engine = Fixture.quietEngine()
        let issues = Issues()
        try await withKnownIssue {
            try await inScope(.diagnosed(engine: engine)) {
                let monitor = engine.makeStreamMonitor(label: DiagnosticLabel("in-process"))  // SITE: in-process
                monitor.receivedSubscription()
                Fixture.keep(monitor)
            }
        } matching: {
            issues.match($0)
        }
        let issue = try #require(issues.all.first)
        #expect(issues.all.count == 1)
        let comment = try #require(issue.comments.first?.rawValue)
        let name =
            "ReactiveDiagnosticsTestingTests.DiagnosedTraitTests/aLeakIsAnIssueAtItsLineWithTheFindingAndItsStack()"
        let lines = comment.split(separator: "\n").map(String.init)
        #expect(
            Array(lines.prefix(3)) == [
                "ReactiveDiagnostics: leakedSubscription [error]: subscription 'in-process' still alive at the end of the test: "
                    + "never completed, failed or cancelled (a retain cycle, or a cancellable kept too long?)",
                "  test: \(name)",
                "  allocated at:",
            ], "\(comment)")
        // The first frame shown is the body's closure, inside this test (an async resume function).
        #expect(
            lines.count > 3 && lines[3].hasPrefix("    ")
                && lines[3].hasSuffix(
                    " in ReactiveDiagnosticsTestingTests.DiagnosedTraitTests.aLeakIsAnIssueAtItsLineWithTheFindingAndItsStack() async throws -> ()"
                ),
            "\(comment)")
        #expect(comment.contains("allow it in this test with @Test(.diagnosed(allowing: [.leakedSubscription]))"))
        let location = try #require(issue.sourceLocation)
        if DiagnosticsEngine.shared.resolvesSourceLines {
            let line = try siteLine("in-process", in: #filePath)
            #expect(location.filePath == #filePath && location.line == line)
            #expect(location.fileID == "ReactiveDiagnosticsTestingTests/DiagnosedTraitTests.swift")
        } else {
            #expect(location == Test.current?.sourceLocation)
        }
        #expect(engine.findings().map(\.test.name) == [name])
    }

    @Test func aGrammarFindingDuringTheBodyIsAnIssueOfTheTest() async throws {
        let engine = Fixture.quietEngine()
        try await withKnownIssue {
            try await inScope(.diagnosed(engine: engine)) {
                let monitor = engine.makeStreamMonitor(label: DiagnosticLabel("grammar"))
                monitor.receivedSubscription()
                monitor.requested(.unlimited)
                monitor.didTerminate(monitor.willTerminate(failure: nil))
                monitor.didDeliverValue(monitor.willDeliverValue())
            }
        } matching: { issue in
            let comment = issue.comments.first?.rawValue ?? ""
            return comment.hasPrefix("ReactiveDiagnostics: valueAfterTermination [error]")
                && comment.contains("  event at ")
        }
        #expect(engine.findings().map(\.kind) == [.valueAfterTermination])
    }

    @Test func aCleanBodyRecordsNothing() async throws {
        // A long limit: the settle ends as soon as the main queue has run the cancel.
        let engine = Fixture.quietEngine(settle: .seconds(10))
        try await inScope(.diagnosed(engine: engine)) {
            let monitor = engine.makeStreamMonitor(label: DiagnosticLabel("clean"))
            monitor.receivedSubscription()
            DispatchQueue.main.async { monitor.cancelled() }  // main-queue work gets its chance
        }
        #expect(engine.findings().isEmpty)
        #expect(engine.makeReport().run.tests.map(\.failed) == [false])
    }

    @Test func allowedKindsAreSuppressedNotHidden() async throws {
        let engine = Fixture.quietEngine()
        try await inScope(.diagnosed(allowing: [.leakedSubscription], engine: engine)) {
            Fixture.keep(engine.makeStreamMonitor(label: DiagnosticLabel("allowed")))
        }
        #expect(engine.findings().map(\.suppressedBy) == ["test allows leakedSubscription"])
    }

    @Test func aTestAndItsSuiteBothDiagnosedAreCheckedOnceWithBothOptions() async throws {
        let engine = Fixture.quietEngine()
        let suite = DiagnosedTrait.diagnosed(engine: engine)
        let test = DiagnosedTrait.diagnosed(allowing: [.leakedSubscription], settle: .milliseconds(40), engine: engine)
        try await inScope(suite) {
            try await inScope(test) {
                Fixture.keep(engine.makeStreamMonitor(label: DiagnosticLabel("nested")))
            }
        }
        #expect(engine.findings().map(\.suppressedBy) == ["test allows leakedSubscription"])
        #expect(engine.makeReport().run.tests.count == 1)
    }

    @Test func theSuiteLevelCallIsNotATest() async throws {
        let engine = Fixture.quietEngine()
        let trait = DiagnosedTrait.diagnosed(engine: engine)
        let test = try #require(Test.current)
        #expect(trait.scopeProvider(for: test, testCase: nil) == nil)
        #expect(trait.scopeProvider(for: test, testCase: Test.Case.current) != nil)
        #expect(trait.isRecursive)
        let ran = Atomic<Bool>(false)
        try await trait.provideScope(for: test, testCase: nil) {
            ran.store(true, ordering: .relaxed)
            Fixture.keep(engine.makeStreamMonitor(label: DiagnosticLabel("suite-level")))
        }
        let bodyRan = ran.load(ordering: .relaxed)
        #expect(bodyRan)
        #expect(engine.makeReport().run.tests.isEmpty && engine.findings().isEmpty)
    }

    struct Boom: Error {}

    @Test func anErrorFromTheBodyIsRethrownAfterTheCheck() async throws {
        let engine = Fixture.quietEngine()
        await withKnownIssue {
            await #expect(throws: Boom.self) {
                try await inScope(.diagnosed(engine: engine)) {
                    Fixture.keep(engine.makeStreamMonitor(label: DiagnosticLabel("thrown")))
                    throw Boom()
                }
            }
        } matching: {
            $0.comments.first?.rawValue.contains("'thrown' still alive") == true
        }
        #expect(engine.findings().map(\.label) == ["thrown"])
    }

    @Test func aThreadWithoutATestCannotBeAttributed() async throws {
        let engine = Fixture.quietEngine()
        try await inScope(.diagnosed(engine: engine)) {
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    Fixture.keep(engine.makeStreamMonitor(label: DiagnosticLabel("unattributed")))
                    continuation.resume()
                }
            }
        }
        #expect(engine.findings().isEmpty)
        let live = engine.ledger.liveResources().filter { $0.label.name == "unattributed" }
        #expect(live.map(\.test) == [.none])
    }

    @Test func workOfADiagnosedSchedulerStaysAttributed() async throws {
        let engine = Fixture.quietEngine()
        try await withKnownIssue {
            try await inScope(.diagnosed(engine: engine)) {
                let probe = engine.makeSchedulerProbe(label: "carried")
                let action = probe.willSchedule()
                await withCheckedContinuation { continuation in
                    DispatchQueue.global().async {
                        let run = probe.willRun(action)
                        Fixture.keep(engine.makeStreamMonitor(label: DiagnosticLabel("carried-leak")))
                        probe.didRun(action, run)
                        continuation.resume()
                    }
                }
            }
        } matching: {
            $0.comments.first?.rawValue.contains("'carried-leak' still alive") == true
        }
        #expect(engine.findings().map(\.label) == ["carried-leak"])
        #expect(
            engine.findings().first?.test.name
                == "ReactiveDiagnosticsTestingTests.DiagnosedTraitTests/workOfADiagnosedSchedulerStaysAttributed()")
    }

    @Test func suppressionsAreAddedToTheEngineWhenTheRunIsPlanned() async throws {
        let engine = Fixture.quietEngine()
        let rule = Suppressions.Rule(type: "leak", pattern: "^vendor")
        let trait = DiagnosedTrait.diagnosed(suppressing: Suppressions(rules: [rule]), engine: engine)
        let test = try #require(Test.current)
        try await trait.prepare(for: test)
        try await trait.prepare(for: test)
        #expect(engine.configuration.suppressions.rules == [rule])
        try await inScope(.diagnosed(engine: engine)) {
            Fixture.keep(engine.makeStreamMonitor(label: DiagnosticLabel("vendor-cache")))
        }
        #expect(engine.findings().map(\.suppressedBy) == ["leak:^vendor"])
    }

    @Test(arguments: [1, 2])
    func casesOfAParameterizedTestGetNamesOfTheirOwn(argument: Int) async throws {
        let engine = Fixture.quietEngine()
        for _ in 0..<2 {
            try await inScope(.diagnosed(engine: engine)) {}
        }
        let names = engine.makeReport().run.tests.map(\.name)
        let base =
            "ReactiveDiagnosticsTestingTests.DiagnosedTraitTests/casesOfAParameterizedTestGetNamesOfTheirOwn(argument:)"
        #expect(names.count == 2 && Set(names).count == 2)
        #expect(names.allSatisfy { $0.hasPrefix(base + " #") })
    }
}
