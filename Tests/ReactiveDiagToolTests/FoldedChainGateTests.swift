import Foundation
import ReactiveDiagnosticsReport
import Testing

/// A leaked chain used to be one finding per stage; it is one finding now, with a fingerprint of
/// its own. Baselines written before still hold: the gate also matches the fingerprints its stages had.
@Suite("Folded chains at the gate")
struct FoldedChainGateTests {
    /// `report` as it is written once the leak `finding` stands for a chain whose stages had
    /// `stageFingerprints` as findings of their own.
    static func folded(_ report: DiagnosticsReport, stageFingerprints: [String]?) throws -> Data {
        var report = report
        let index = try #require(report.findings.firstIndex { $0.kind == "leakedSubscription" })
        report.findings[index].fingerprint = "0123456789abcdef"
        report.findings[index].details[ReportFinding.stagesKey] = "PassthroughSubject<Int, Never> → Map"
        report.findings[index].details[ReportFinding.stageFingerprintsKey] = stageFingerprints?.joined(separator: " ")
        return try report.encoded(prettyPrinted: false)
    }

    @Test func aBaselineWrittenWhenEachStageWasAFindingStillHolds() throws {
        try withTemporaryDirectory { directory in
            let fixture = try DiagnosticsReport.load(from: Fixtures.url("shop-report.json"))
            let accepted = runTool(
                ["baseline", Fixtures.url("shop-report.json").path, "-o", "accepted.json"], in: directory.path)
            #expect(accepted.code == 0)
            let before = try #require(fixture.findings.first { $0.kind == "leakedSubscription" }).fingerprint

            try Self.folded(fixture, stageFingerprints: ["fedcba9876543210", before])
                .write(to: directory.appendingPathComponent("folded.json"))
            let gate = runTool(["gate", "folded.json", "--baseline", "accepted.json"], in: directory.path)
            #expect(gate.code == 0, "\(gate.stdout)\n\(gate.stderr)")
            #expect(!gate.stdout.contains("fixed"), "the stage's entry is matched, not reported fixed: \(gate.stdout)")

            // The control: the same finding without its stages' fingerprints is new.
            try Self.folded(fixture, stageFingerprints: nil).write(to: directory.appendingPathComponent("new.json"))
            let control = runTool(["gate", "new.json", "--baseline", "accepted.json"], in: directory.path)
            #expect(control.code == 1, "\(control.stdout)")
        }
    }

    @Test func theFingerprintsOfAFindingAreItsOwnThenItsStages() {
        let finding = ReportFinding(
            id: 1, kind: "leakedSubscription", severity: .error, message: "m", fingerprint: "aaaa", policy: "fail",
            details: [ReportFinding.stageFingerprintsKey: "bbbb aaaa cccc", ReportFinding.stagesKey: "A → B → C"])
        #expect(finding.fingerprints == ["aaaa", "bbbb", "cccc"])
        #expect(finding.stages == ["A", "B", "C"])
    }

    /// The shop fixture (version 1) as version 3 writes it once its leak folds a chain of two
    /// stages: a `flatMap`'s inner publisher (the cause), then the chain's own stage, whose
    /// fingerprint was the leak's.
    static func chainReport() throws -> DiagnosticsReport {
        var report = try DiagnosticsReport.load(from: Fixtures.url("shop-report.json"))
        let index = try #require(report.findings.firstIndex { $0.kind == "leakedSubscription" })
        let before = report.findings[index].fingerprint
        let stack = try #require(report.findings[index].allocationStack)
        report.schemaVersion = DiagnosticsReport.currentSchemaVersion
        report.findings[index].fingerprint = "0123456789abcdef"
        report.findings[index].chain = [
            ReportChainStage(
                label: "Empty<Int, Never>", resourceKind: "subscription", allocationStack: stack,
                fingerprint: "fedcba9876543210", innerOf: "FlatMap", isCause: true),
            ReportChainStage(
                label: "FlatMap<Empty<Int, Never>, PassthroughSubject<Int, Never>>", resourceKind: "subscription",
                allocationStack: stack, fingerprint: before),
        ]
        return report
    }

    /// A version 3 report keeps each stage with its stack: the gate matches the stages'
    /// fingerprints from `chain`, `show` lists the stages where the user's code made them and
    /// marks the cause, and `merge` keeps the stages' stacks.
    @Test func aChainOfStagesIsMatchedShownAndMerged() throws {
        try withTemporaryDirectory { directory in
            let report = try Self.chainReport()
            let accepted = runTool(
                ["baseline", Fixtures.url("shop-report.json").path, "-o", "accepted.json"], in: directory.path)
            #expect(accepted.code == 0)
            #expect(report.validationProblem() == nil)
            try report.encoded(prettyPrinted: false).write(to: directory.appendingPathComponent("chain.json"))

            let gate = runTool(["gate", "chain.json", "--baseline", "accepted.json"], in: directory.path)
            #expect(gate.code == 0, "\(gate.stdout)\n\(gate.stderr)")

            let show = runTool(["show", "chain.json", "--color", "never"], in: directory.path)
            #expect(show.code == 0, "\(show.stderr)")
            #expect(show.stdout.contains("chain       chain of 2 stages, upstream first:"), "\(show.stdout)")
            #expect(show.stdout.contains("Empty<Int, Never> (inner of FlatMap), the cause: made at "), "\(show.stdout)")

            let merge = runTool(["merge", "chain.json", "chain.json", "-o", "merged.json"], in: directory.path)
            #expect(merge.code == 0, "\(merge.stderr)")
            let merged = try DiagnosticsReport.load(from: directory.appendingPathComponent("merged.json"))
            #expect(merged.validationProblem() == nil)
            let stages = merged.findings.compactMap(\.chain).flatMap { $0 }
            #expect(stages.count == 4 && stages.allSatisfy { $0.allocationStack != nil })
        }
    }
}
