import Foundation
@_spi(Integration) import ReactiveDiagnostics
import Testing

/// A subscriber the engine knows nothing about (no framework): a closure it holds, and the
/// model that keeps the subscriber in a bag, which the closure captures.
final class PlainSubscriber {
    var onValue: (Int) -> Void = { _ in }
}

final class PlainModel {
    static let closureLine = #line + 10
    var bag: [PlainSubscriber] = []
    var total = 0
    /// The monitors (their ledger entries), alive as long as the model, as a stage's would be.
    var monitors: [StreamMonitor] = []

    func subscribe(engine: DiagnosticsEngine) {
        let subscriber = PlainSubscriber()
        let monitor = engine.makeStreamMonitor(label: DiagnosticLabel("plain"))
        monitor.setRetainPathAnchor(subscriber)
        subscriber.onValue = { self.total += $0 }
        bag.append(subscriber)
        monitors.append(monitor)
    }

    /// Breaks the cycle (after the test looked at it).
    func release() {
        bag.removeAll()
    }
}

@Suite("Retain paths in findings and reports")
struct RetainPathReportTests {
    /// An engine whose one test leaked a subscription kept by a retain cycle.
    func leakingEngine(resolvesSourceLines: Bool = true) -> (DiagnosticsEngine, TestOutcome, PlainModel?) {
        let engine = makeEngine {
            $0.settleTime = .milliseconds(50)
            $0.retainPathLimits.time = .seconds(60)
            $0.resolvesSourceLines = resolvesSourceLines
        }
        let checkpoint = engine.beginTest(named: "RetainPathReportTests.leak", serial: false)
        weak var leaked: PlainModel?
        TestIdentity.$current.withValue(checkpoint.test) {
            let model = PlainModel()
            model.subscribe(engine: engine)
            leaked = model
        }
        return (engine, engine.finishTest(checkpoint), leaked)
    }

    @Test func aLeakedSubscriptionCarriesItsRetainCycle() throws {
        let (engine, outcome, model) = leakingEngine()
        defer { model?.release() }
        let finding = try #require(outcome.findings.first { $0.kind == .leakedSubscription })
        let path = try #require(finding.retainPath)
        let text = path.textLines().joined(separator: "\n")
        #expect(path.verdict == .cycle, "\(text)")
        #expect(path.cycle.first?.type == "PlainModel", "\(text)")
        #expect(path.cycle.first?.links.first?.name == "bag", "\(text)")
        #expect(path.cycle.contains { $0.type == "PlainSubscriber" && $0.isSubscription }, "\(text)")
        let closure = path.cycle.flatMap(\.links).compactMap(\.closure).first { $0.category == .user }
        #expect(closure?.line == PlainModel.closureLine, "\(text)")
        #expect(closure?.file?.hasSuffix("RetainPathReportTests.swift") == true)
        #expect(text.contains("captures `self` strongly"), "\(text)")
        // The failure message shows it.
        let description = engine.describe(finding)
        #expect(
            description.contains("  retained by a cycle:\n    PlainModel\n      .bag: [PlainSubscriber]"),
            "\(description)")
        #expect(description.contains("  fix: capture [weak self]"), "\(description)")
    }

    /// Lines off (``Configuration/resolvesSourceLines``): the cycle is told all the same, and
    /// no closure's line is looked up.
    @Test func withoutSourceLinesTheCycleIsToldWithoutClosureLines() throws {
        let (engine, outcome, model) = leakingEngine(resolvesSourceLines: false)
        defer { model?.release() }
        let finding = try #require(outcome.findings.first { $0.kind == .leakedSubscription })
        let path = try #require(finding.retainPath)
        let text = path.textLines().joined(separator: "\n")
        #expect(path.verdict == .cycle, "\(text)")
        #expect(path.cycle.first?.type == "PlainModel", "\(text)")
        #expect(path.cycle.first?.links.first?.name == "bag", "\(text)")
        let closures = path.cycle.flatMap(\.links).compactMap(\.closure)
        #expect(!closures.isEmpty, "\(text)")
        #expect(closures.allSatisfy { $0.line == nil && $0.file == nil }, "\(text)")
        #expect(engine.describe(finding).contains("retained by a cycle:"))
    }

    @Test func theReportKeepsItAndValidatesAgainstTheSchema() throws {
        let (engine, _, model) = leakingEngine()
        defer { model?.release() }
        let report = engine.makeReport()
        let finding = try #require(report.findings.first { $0.kind == "leakedSubscription" })
        #expect(finding.retainPath?.verdict == .cycle)
        let decoded = try DiagnosticsReport.decode(try report.encoded(), source: "memory")
        #expect(decoded.findings == report.findings)
        let schema = packageRoot().appendingPathComponent("Docs/report.schema.json")
        let validator = try JSONSchemaValidator(schema: Data(contentsOf: schema))
        let errors = validator.validate(try JSONSerialization.jsonObject(with: report.encoded()))
        #expect(errors.isEmpty, "\(errors.prefix(5))")
    }

    @Test func explanationsCanBeTurnedOff() throws {
        let engine = makeEngine {
            $0.settleTime = .milliseconds(50)
            $0.explainsRetainPaths = false
        }
        let checkpoint = engine.beginTest(named: "RetainPathReportTests.off", serial: false)
        weak var leaked: PlainModel?
        TestIdentity.$current.withValue(checkpoint.test) {
            let model = PlainModel()
            model.subscribe(engine: engine)
            leaked = model
        }
        defer { leaked?.release() }
        let outcome = engine.finishTest(checkpoint)
        let finding = try #require(outcome.findings.first { $0.kind == .leakedSubscription })
        #expect(finding.retainPath == nil)
        #expect(try Configuration(environment: ["REACTIVE_DIAGNOSTICS_RETAIN_PATHS": "0"]).explainsRetainPaths == false)
        #expect(
            try Configuration(environment: ["REACTIVE_DIAGNOSTICS_RETAIN_PATH_MS": "40"]).retainPathLimits.time
                == .milliseconds(40))
    }

    @Test func anObjectOfYourOwnCanBeAsked() {
        final class Node {
            var next: Node?
            var action: () -> Void = {}
        }
        let first = Node()
        let second = Node()
        first.next = second
        second.action = { _ = first }
        // A limit of its own: the answer must not depend on how loaded the machine is (the
        // default's 1 s ran out under Thread Sanitizer beside other builds).
        let path = DiagnosticsEngine.shared.retainPath(of: first, limits: RetainPathLimits(time: .seconds(60)))
        // `Node` is the test's own type: a loop through it is a cycle.
        #expect(path.verdict == .cycle, "\(path.textLines().joined(separator: "\n"))")
        #expect(path.cycle.map(\.type).contains("Node"))
        second.action = {}
    }
}
