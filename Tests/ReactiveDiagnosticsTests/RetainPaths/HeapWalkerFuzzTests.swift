import ReactiveDiagnostics
import RetainPathFuzzCases
import Testing

/// The retain-path walker on closures capturing every kind of value (structs, enums with
/// payloads, existentials, boxes, nested and generic closures, weak and unowned captures,
/// tuples, collections, actors, Foundation values), then on random values: it must find each
/// strong reference to the hidden marker, report weak and unowned ones as not strong, and
/// never crash. `retain-path-fuzz` runs the same cases in a release build.
@Suite struct HeapWalkerFuzzTests {
    @Test(arguments: WalkCases.all.map(\.name))
    func everyKindOfCaptureIsWalked(_ name: String) throws {
        let walkCase = try #require(WalkCases.all.first { $0.name == name })
        let failures = walkCase.check()
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    @Test func randomValuesAreWalkedExactly() {
        var failures: [String] = []
        for seed in 1...20 {
            failures += RandomValues.check(seed: UInt64(seed), count: 25)
        }
        #expect(failures.isEmpty, "\(failures.prefix(5).joined(separator: "\n"))")
    }

    @Test func optionalExistentialPropertiesAreWalked() {
        let failures = WalkCases.optionalExistentialProperties()
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    @Test func anActorsPropertiesAreWalked() {
        let failures = WalkCases.actorProperties()
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }
}
