import ReactiveDiagnostics
import XCTest

/// Records a test failure at a file and line known only at run time.
///
/// `XCTFail(_:file:line:)` takes a `StaticString` file, so it cannot point at a line found by
/// symbolization. Linux's XCTest (swift-corelibs-xctest) has no `XCTIssue`/`record(_:)`, but
/// `XCTFail` itself ends in `recordFailure(withDescription:inFile:atLine:expected:)`, which
/// takes a `String`: that is what is called there. Apple's XCTest gets an `XCTIssue`.
enum FailureRecorder {
    static func record(_ message: String, at location: SourceLine?, in testCase: XCTestCase) {
        #if canImport(ObjectiveC)
        var context = XCTSourceCodeContext()
        if let location {
            context = XCTSourceCodeContext(
                location: XCTSourceCodeLocation(filePath: location.file, lineNumber: location.line))
        }
        testCase.record(XCTIssue(type: .assertionFailure, compactDescription: message, sourceCodeContext: context))
        #else
        testCase.recordFailure(
            withDescription: message, inFile: location?.file ?? "<unknown>", atLine: location?.line ?? 0, expected: true
        )
        #endif
    }
}
