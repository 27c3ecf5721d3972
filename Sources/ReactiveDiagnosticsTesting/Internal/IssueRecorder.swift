import ReactiveDiagnostics
import Testing

/// Records a finding that fails a test as a Swift Testing issue.
enum IssueRecorder {
    /// Records `finding` against the running test, at the first user line of its allocation
    /// (then event) stack, or at the test's own declaration when no frame resolves.
    static func record(_ finding: Finding, engine: DiagnosticsEngine, test: Test) {
        let shown = FindingPresentation.failure(for: finding, engine: engine, allowHint: allowHint(for: finding.kind))
        Issue.record(Comment(rawValue: shown.message), sourceLocation: location(of: shown, test: test))
    }

    static func location(of shown: FindingPresentation.Failure, test: Test) -> SourceLocation {
        guard let line = shown.line else {
            return test.sourceLocation
        }
        let fileName = line.file.split(separator: "/").last.map(String.init) ?? line.file
        let module = shown.module ?? test.sourceLocation.moduleName
        return SourceLocation(
            fileID: "\(module)/\(fileName)", filePath: line.file, line: line.line, column: max(line.column, 1))
    }

    static func allowHint(for kind: FindingKind) -> String {
        let value =
            FindingKind.allKnown.contains(kind) ? ".\(kind.rawValue)" : "FindingKind(rawValue: \"\(kind.rawValue)\")"
        return "allow it in this test with @Test(.diagnosed(allowing: [\(value)]))"
    }
}
