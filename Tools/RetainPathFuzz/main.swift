// retain-path-fuzz: walks closures capturing every kind of value, then random values, for a
// bounded time; exits 1 on the first wrong answer. Built in release by Tools/test.sh, because
// optimization changes closure layouts and specializes generic ones (the test target runs the
// same cases in debug).
//
//   swift run -c release retain-path-fuzz [seconds]
import Foundation
import RetainPathFuzzCases

let seconds = CommandLine.arguments.dropFirst().first.flatMap(Double.init) ?? 10
var failures: [String] = []
for walkCase in WalkCases.all {
    failures += walkCase.check()
}
let start = Date()
var seed: UInt64 = 1
var values = 0
while failures.isEmpty, Date().timeIntervalSince(start) < seconds {
    failures += RandomValues.check(seed: seed, count: 50)
    values += 50
    seed += 1
}
if failures.isEmpty {
    FileHandle.standardError.write(
        Data(
            "retain-path-fuzz: \(WalkCases.all.count) kinds of captures and \(values) random values walked, no wrong answer\n"
                .utf8))
} else {
    FileHandle.standardError.write(Data((failures.prefix(20).joined(separator: "\n") + "\n").utf8))
    exit(1)
}
