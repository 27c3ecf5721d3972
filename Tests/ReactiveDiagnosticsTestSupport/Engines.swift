import Foundation
public import ReactiveDiagnostics

/// A private engine for one test: stacks on, nothing written to disk, nothing printed, a short
/// settle time, a long-action threshold no action of a clean test reaches even on a loaded CI
/// machine (tests of long actions give their scheduler a threshold of its own), and no source
/// lines (resolving them runs llvm-symbolizer, which blocks the thread a test runs on; tests of
/// lines turn it on); `change` adjusts anything else.
public func quietEngine(
    settle: Duration = .milliseconds(200), _ change: (inout Configuration) -> Void = { _ in }
) -> DiagnosticsEngine {
    var configuration = Configuration()
    configuration.writesReport = false
    configuration.printsSummary = false
    configuration.settleTime = settle
    configuration.longActionThreshold = quietLongActionThreshold
    configuration.resolvesSourceLines = false
    change(&configuration)
    return DiagnosticsEngine(configuration: configuration)
}

/// The long-action threshold of test engines and child runs: wall time, so a thread the machine
/// preempts for a while must not turn a clean test's action into a finding.
public let quietLongActionThreshold: Duration = .seconds(10)

/// The line of a `// SITE: name` marker in a fixture source file, so that tests can assert
/// where a failure points without hard-coding line numbers.
public func siteLine(_ name: String, in file: String) throws -> Int {
    let text = try String(contentsOfFile: file, encoding: .utf8)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    guard let index = lines.firstIndex(where: { $0.hasSuffix("// SITE: \(name)") }) else {
        throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: file])
    }
    return index + 1
}
