import ReactiveDiagnostics
import Testing
import _ReactiveDiagnosticsSupport

/// Names a test case for attribution and the report.
enum TestNaming {
    private static let caseCounters = LockedValue<[Test.ID: Int]>([:])

    /// `Module.Suite/test()` (the test's ID without its source location), plus ` #N` for the
    /// N-th case of a parameterized test started in this process: cases of one test may run at
    /// the same time and must not share an identity.
    static func name(of test: Test, testCase: Test.Case) -> String {
        let base = "\(test.id.moduleName).\(test.id.nameComponents.joined(separator: "/"))"
        guard testCase.isParameterized else { return base }
        let number = caseCounters.withLock { counters in
            counters[test.id, default: 0] += 1
            return counters[test.id] ?? 1
        }
        return "\(base) #\(number)"
    }
}
