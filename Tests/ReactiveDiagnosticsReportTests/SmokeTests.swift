import ReactiveDiagnosticsReport
import Testing

@Test func smoke() {
    #expect(DiagnosticsReport.currentSchemaVersion == 1)
}
