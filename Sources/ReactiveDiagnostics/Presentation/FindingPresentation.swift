import Foundation
import ReactiveDiagnosticsSymbolication
import Synchronization

/// How a finding that fails a test is shown: where it points and what it says.
package enum FindingPresentation {
    /// How many user frames of a stack are tried for a source line.
    static let userFramesTried = 4

    /// The first user frame of the finding's allocation stack (then of its event stack) that
    /// resolves to a source line, with that line.
    package static func sourceLine(of finding: Finding, engine: DiagnosticsEngine) -> (line: SourceLine, frame: SymbolizedFrame)? {
        for stack in [finding.allocationStack, finding.eventStack] where stack.isCaptured {
            for frame in engine.symbolize(stack).userFrames.prefix(userFramesTried) {
                if let line = engine.sourceLine(of: frame) {
                    return (line, frame)
                }
            }
        }
        return nil
    }

    /// The failure message: the engine's description of the finding (its message, then its
    /// stacks with user frames shown and framework and runtime frames folded), then how to
    /// opt out.
    package static func message(for finding: Finding, engine: DiagnosticsEngine, allowHint: String) -> String {
        let kind = finding.kind.rawValue
        return "ReactiveDiagnostics: " + engine.describe(finding) + "\n"
            + "  not a bug here? \(allowHint), or suppress it run-wide with a '\(kind):PATTERN' line "
            + "in the file named by REACTIVE_DIAGNOSTICS_SUPPRESSIONS"
    }
}

extension FindingPresentation {
    private static let foldedGeneratedModules = Atomic<Bool>(false)

    /// Folds the modules SwiftPM generates for a test binary (`<Package>PackageTests`, its
    /// runner, and `<Package>PackageDiscoveredTests`, the test list on Linux) like framework
    /// frames, so that a test's stacks show the user's frames only. Called when the glue
    /// starts, before any fingerprint is computed: the discovered test list's closure numbers
    /// change whenever a test is added, and must not reach fingerprints.
    package static func foldGeneratedTestRunnerFrames() {
        guard !foldedGeneratedModules.exchange(true, ordering: .acquiringAndReleasing) else { return }
        FrameClassifier.shared.addFrameworkModules(generatedTestModules(processName: ProcessInfo.processInfo.processName))
    }

    /// `Name.xctest` gives `Name` and, when it ends in `PackageTests`, the matching
    /// `PackageDiscoveredTests` module.
    package static func generatedTestModules(processName: String) -> [String] {
        guard processName.hasSuffix(".xctest") else { return [] }
        let runner = String(processName.dropLast(".xctest".count))
        guard runner.hasSuffix("PackageTests") else { return [runner] }
        return [runner, runner.dropLast("Tests".count) + "DiscoveredTests"]
    }
}
