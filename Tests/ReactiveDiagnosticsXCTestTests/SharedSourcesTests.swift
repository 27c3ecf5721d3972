import Foundation
import Testing

/// The two glue modules share no module but the engine, so two internal files exist in both.
/// They must not drift apart.
@Suite("Shared glue sources")
struct SharedSourcesTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test(arguments: ["FindingPresentation.swift", "RunReports.swift"])
    func copiesAreIdentical(file: String) throws {
        let xctest = Self.packageRoot.appendingPathComponent("Sources/ReactiveDiagnosticsXCTest/Internal/\(file)")
        let testing = Self.packageRoot.appendingPathComponent("Sources/ReactiveDiagnosticsTesting/Internal/\(file)")
        let xctestText = try String(contentsOf: xctest, encoding: .utf8)
        #expect(!xctestText.isEmpty)
        #expect(xctestText == (try String(contentsOf: testing, encoding: .utf8)), "\(file) differs between the two glue modules")
    }
}
