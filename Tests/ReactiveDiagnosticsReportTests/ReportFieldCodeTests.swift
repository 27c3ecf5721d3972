import Foundation
import ReactiveDiagnosticsReport
import Testing

/// The single-pass writer and reader are generated from the field tables: this test generates
/// them again and fails when a checked-in file is stale (a table changed, or someone edited the
/// generated code). `UPDATE_GENERATED=1` rewrites them instead.
@Suite("Report writer and reader are generated from the field tables")
struct ReportFieldCodeTests {
    static let json = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/ReactiveDiagnosticsReport/JSON")
    /// The ledger's and the schedulers' statistics, generated into files of their own.
    static let statistics = ReportCodeGenerator.objects(from: [LedgerSummary.self, SchedulerSummary.self])
    /// The rest of the report and the crash journal's update entry.
    static let model = ReportCodeGenerator.objects(from: [DiagnosticsReport.self, FindingUpdate.self])
        .filter { type in !statistics.contains { $0 == type } }

    func check(_ generated: String, _ file: String) throws {
        let url = Self.json.appendingPathComponent(file)
        if ProcessInfo.processInfo.environment["UPDATE_GENERATED"] == "1" {
            try generated.write(to: url, atomically: true, encoding: .utf8)
            return
        }
        let current = try String(contentsOf: url, encoding: .utf8)
        #expect(
            current == generated,
            """
            \(file) is not what the field tables generate: run `UPDATE_GENERATED=1 swift test --filter \
            ReportFieldCodeTests` (and never edit it by hand)
            """)
    }

    @Test func theWriterIsCurrent() throws {
        try check(ReportCodeGenerator.writer(Self.model), "ReportModel+JSONWriting.swift")
        try check(ReportCodeGenerator.writer(Self.statistics), "ReportStatistics+JSONWriting.swift")
    }

    @Test func theReaderIsCurrent() throws {
        try check(ReportCodeGenerator.reader(Self.model), "ReportModel+JSONReading.swift")
        try check(ReportCodeGenerator.reader(Self.statistics), "ReportStatistics+JSONReading.swift")
    }

    @Test func everyObjectOfTheModelHasATable() {
        let names = Set((Self.model + Self.statistics).map { ReportCodeGenerator.name($0) })
        #expect(Self.model.count + Self.statistics.count == names.count, "an object is generated twice")
        #expect(
            names == [
                "DiagnosticsReport", "ToolInfo", "RunInfo", "TestRecord", "ReportFinding", "ReportThread",
                "LedgerSummary",
                "KindTotals", "LiveSite", "SchedulerSummary", "LatencySummary", "HistogramBucket", "ThreadCount",
                "ReportStack", "ReportFrame", "ReportImage", "SourceLineStatus", "FindingUpdate", "ReportRetainPath",
                "ReportRetainStep", "ReportRetainLink", "ReportClosure", "ReportRetainHold", "ReportChainStage",
            ])
    }
}
