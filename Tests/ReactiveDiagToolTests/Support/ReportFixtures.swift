import Foundation
import ReactiveDiagnosticsReport

/// Fixture reports, decoded.
enum ReportFixtures {
    /// Loads a fixture report.
    static func load(_ name: String) throws -> DiagnosticsReport {
        try DiagnosticsReport.load(from: Fixtures.url(name))
    }

    /// Writes `report` to `url` as JSON.
    static func write(_ report: DiagnosticsReport, to url: URL) throws {
        try report.encoded().write(to: url)
    }
}
