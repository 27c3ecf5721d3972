@_spi(Integration) import ReactiveDiagnostics
import CombineDiagnostics
import Foundation
import OpenCombineShim
import ReactiveDiagnosticsTestSupport
import Testing

extension CombineAdapterTests {
    /// A team adopts the checker with its old leaks baselined: the test process knows the
    /// baseline, and only new findings fail, with no time spent on the accepted ones.
    @Suite struct AcceptedFindings {
        final class Bag {
            var cancellables: [AnyCancellable] = []
        }

        /// An old leak: a chain on a subject that never completes, kept in a bag.
        @inline(never)
        static func oldLeak(_ subject: PassthroughSubject<Int, Never>, _ bag: Bag) {
            subject.map { $0 + 1 }.sink { _ in }.store(in: &bag.cancellables)
        }

        /// A new leak, elsewhere.
        @inline(never)
        static func newLeak(_ subject: PassthroughSubject<Int, Never>, _ bag: Bag) {
            subject.filter { $0 > 0 }.sink { _ in }.store(in: &bag.cancellables)
        }

        /// Runs one test that makes the old leak (and the new one, with `new`) into an engine
        /// configured by `change`: the same code each time, as a suite runs on every pull request.
        static func run(
            new: Bool = false, _ change: (inout Configuration) -> Void = { _ in }
        ) -> (engine: DiagnosticsEngine, outcome: TestOutcome) {
            let engine = makeEngine(change)
            let subject = PassthroughSubject<Int, Never>()
            let bag = Bag()
            let outcome = instrumented(engine) { _ in
                runTest(engine, "adoption") {
                    oldLeak(subject, bag)
                    if new { newLeak(subject, bag) }
                }
            }
            bag.cancellables.removeAll()
            return (engine, outcome)
        }

        @Test func anAcceptedLeakNeitherFailsNorIsExplainedNorWaitedFor() throws {
            // The first run: the leak fails, explained; its fingerprint goes to the baseline.
            let first = Self.run()
            let leak = try #require(first.outcome.unsuppressed.first { $0.kind == .leakedSubscription })
            let fingerprint = first.engine.fingerprint(of: leak)

            let accepted = Self.run { configuration in
                configuration.acceptedFindings = ReactiveDiagnostics.AcceptedFindings(fingerprints: [fingerprint])
                configuration.settleTime = .seconds(10)
            }
            #expect(accepted.outcome.unsuppressed.isEmpty, "\(accepted.outcome.findings)")
            let marked = try #require(accepted.outcome.findings.first { $0.kind == .leakedSubscription })
            #expect(marked.suppressedBy == "baseline")
            #expect(marked.retainPath == nil, "an accepted leak is not explained again")
            #expect(accepted.engine.fingerprint(of: marked) == fingerprint)
            // Not waited for: well under the settle time (10 s), which a wait would have taken.
            #expect(accepted.outcome.settleDuration < .seconds(5), "\(accepted.outcome.settleDuration)")
            #expect(accepted.outcome.failures.isEmpty)
        }

        @Test func aNewLeakBesideAnAcceptedOneStillFails() throws {
            let first = Self.run()
            let fingerprint = first.engine.fingerprint(
                of: try #require(first.outcome.unsuppressed.first { $0.kind == .leakedSubscription }))
            let both = Self.run(new: true) { configuration in
                configuration.acceptedFindings = ReactiveDiagnostics.AcceptedFindings(fingerprints: [fingerprint])
                configuration.settleTime = .milliseconds(300)
                // Waiting the whole settle time for what is not accepted, even when nothing is in
                // flight (which depends on the tests running beside this one).
                configuration.settlesWhenIdle = false
            }
            let leaks = both.outcome.findings.filter { $0.kind == .leakedSubscription }
            #expect(leaks.count == 2)
            #expect(both.outcome.unsuppressed.count == 1)
            let new = try #require(both.outcome.unsuppressed.first)
            #expect(new.label?.hasPrefix("Filter") == true, "\(new.label ?? "")")
            #expect(new.retainPath != nil || !both.engine.configuration.explainsRetainPaths)
            // Something new is alive, so the test waited its settle time for it: the accepted leak
            // beside it did not end the wait.
            #expect(both.outcome.settleDuration >= .milliseconds(300))
        }

        @Test func theBaselineFileIsReadFromTheEnvironment() throws {
            let directory = try TemporaryDirectory()
            let url = directory.url.appendingPathComponent("baseline.json")
            try Data(
                #"""
                {"baselineVersion":1,"generator":"reactive-diag 1.0","entries":[
                  {"fingerprint":"3fa2c9d1e0b4a7f8","kind":"leakedSubscription","summary":"error leakedSubscription"},
                  {"fingerprint":"0d9b4e7f1c2a3586","kind":"wrongThread","summary":"error wrongThread"}]}
                """#.utf8
            ).write(to: url)
            let configuration = try Configuration(environment: ["REACTIVE_DIAGNOSTICS_BASELINE": url.path])
            #expect(configuration.acceptedFindings.fingerprints == ["3fa2c9d1e0b4a7f8", "0d9b4e7f1c2a3586"])

            try Data(#"{"findings":[]}"#.utf8).write(to: url)
            #expect(throws: ConfigurationError.self) {
                try Configuration(environment: ["REACTIVE_DIAGNOSTICS_BASELINE": url.path])
            }
            do {
                _ = try Configuration(environment: ["REACTIVE_DIAGNOSTICS_BASELINE": url.path])
            } catch {
                #expect(error.message.contains("is not a baseline"), "\(error.message)")
            }
        }
    }
}
