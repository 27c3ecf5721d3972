@testable import ReactiveDiagTool
import Testing

/// Durations come from reports, which may say anything: the fuzzer found a run whose end lay
/// far before its start, and formatting its duration trapped.
@Suite("Formatting")
struct FormattingTests {
    @Test func durationsOfAnyReportFormatWithoutTrapping() {
        #expect(Formatting.duration(nanoseconds: 850.0) == "850 ns")
        #expect(Formatting.duration(nanoseconds: -1.25e9) == "-1.25 s")
        #expect(Formatting.duration(nanoseconds: -1e300).hasPrefix("-"))
        #expect(Formatting.duration(nanoseconds: .infinity) == "?")
        #expect(Formatting.duration(nanoseconds: .nan) == "?")
    }
}
