import Foundation
import Testing

/// Golden-file (snapshot) comparison: the expected output lives in `Golden/<name>`.
/// Run with `UPDATE_GOLDEN=1` to rewrite the files from the current output.
enum Golden {
    /// The directory of the golden files, next to this test target's sources.
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Golden")

    /// Whether this run rewrites golden files instead of comparing.
    static var isUpdating: Bool {
        ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1"
    }

    /// Compares `actual` with the golden file `name`, recording an issue with the first
    /// differing line when they differ.
    static func assertMatches(
        _ actual: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let url = directory.appendingPathComponent(name)
        if isUpdating {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(actual.utf8).write(to: url)
            return
        }
        guard let expected = try? String(decoding: Data(contentsOf: url), as: UTF8.self) else {
            Issue.record(
                "golden file \(name) is missing; run the tests with UPDATE_GOLDEN=1 to create it",
                sourceLocation: sourceLocation)
            return
        }
        guard expected != actual else { return }
        let expectedLines = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let actualLines = actual.split(separator: "\n", omittingEmptySubsequences: false)
        let index =
            zip(expectedLines, actualLines).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? min(expectedLines.count, actualLines.count)
        let expectedLine = index < expectedLines.count ? String(expectedLines[index]) : "<end of file>"
        let actualLine = index < actualLines.count ? String(actualLines[index]) : "<end of file>"
        Issue.record(
            """
            output differs from golden file \(name) at line \(index + 1) \
            (UPDATE_GOLDEN=1 rewrites it after review):
              expected: \(expectedLine)
              actual:   \(actualLine)
            """, sourceLocation: sourceLocation)
    }
}
