import Dispatch
import EffectDiagnostics
import Foundation
import ReactiveDiagnostics
import Testing

/// Effect and observer findings reach the report like every other finding.
@Suite("Effect findings in the report")
struct ReportTests {
    enum Action: Sendable {
        case saved
    }

    @Test func findingsAppearInTheReportWithFingerprintsAndSymbolizedStacks() throws {
        let engine = makeEngine()
        let center = NotificationCenter()
        let diagnosed = center.diagnosed(engine: engine)
        let pending = Recorder<@Sendable (Action) -> Void>()
        var observer: (any NSObjectProtocol)?
        let outcome = runTest(engine) {
            DiagnosedEffect<Action>("save") { send in
                send(.saved)
                send(.saved)
            }.run(engine: engine) { _ in }
            DiagnosedEffect<Action>("fetch") { send in pending.append(send) }.run(engine: engine) { _ in }
            observer = diagnosed.addObserver(forName: .themeChanged) { _ in }
        }
        #expect(Set(outcome.findings.map(\.kind)) == [.callbackCalledTwice, .callbackNeverCalled, .observerNotRemoved])

        let report = engine.makeReport()
        #expect(report.validationProblem() == nil)
        let stacks = Dictionary(uniqueKeysWithValues: report.stacks.map { ($0.id, $0) })
        for (kind, label, resourceKind) in [
            ("callbackCalledTwice", "save", "callback"), ("callbackNeverCalled", "fetch", "callback"),
            ("observerNotRemoved", "ThemeChanged", "observer"),
        ] {
            let finding = try #require(report.findings.first { $0.kind == kind }, "\(kind) missing from the report")
            #expect(finding.label == label && finding.resourceKind == resourceKind)
            #expect(finding.test == outcome.test.name)
            #expect(finding.severity == .error && finding.policy == "fail")
            #expect(finding.fingerprint.count == 16 && finding.fingerprint.allSatisfy(\.isHexDigit))
            let original = try #require(outcome.findings.first { $0.kind.rawValue == kind })
            #expect(finding.fingerprint == engine.fingerprint(of: original))
            let stack = try #require(finding.allocationStack.flatMap { stacks[$0] })
            #expect(
                stack.frames.contains {
                    $0.category == .user
                        && $0.function?.contains("findingsAppearInTheReportWithFingerprintsAndSymbolizedStacks") == true
                })
            #expect(stack.droppedFrames > 0, "the library's own frames are dropped")
        }
        let twice = try #require(report.findings.first { $0.kind == "callbackCalledTwice" })
        #expect(twice.eventStack.flatMap { stacks[$0] } != nil, "the second call's stack is in the report")
        let live = try #require(report.ledger.liveAtEnd.first { $0.kind == "observer" })
        #expect(live.label == "ThemeChanged" && live.count == 1 && live.tests == [outcome.test.name ?? ""])
        let totals = Dictionary(uniqueKeysWithValues: report.ledger.kinds.map { ($0.kind, $0) })
        #expect(totals["callback"]?.registered == 2 && totals["observer"]?.registered == 1)

        let json = try #require(String(data: try report.encoded(), encoding: .utf8))
        #expect(json.contains("\"callbackNeverCalled\"") && json.contains("\"observerNotRemoved\""))
        observer.map(diagnosed.removeObserver)
        pending.removeAll()
    }
}
