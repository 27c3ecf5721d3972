import Foundation
import ReactiveDiagnosticsReport
import Synchronization
import ReactiveDiagnosticsSymbolication

/// How a finding that fails a test is shown: the message (``FindingText``, the presentation
/// `reactive-diag` shares) and where it is placed (``FindingPlacement``, the rule every output
/// follows), so a failed test and the viewer say the same and point at the same line.
package enum FindingPresentation {
    /// What the test glue records: the failure message and, when a frame of the finding has a
    /// source line, where.
    package struct Failure: Sendable {
        /// The message.
        package var message: String
        /// The culprit's source line.
        package var line: SourceLine?
        /// The culprit frame's module, when known.
        package var module: String?
    }

    /// The failure for `finding`: its description, then how to opt out; placed at its culprit.
    ///
    /// Naming its frames (and waiting for llvm-symbolizer's answer) is the library's own work:
    /// a test settling beside this one does not wait for it (``WorkInFlight/asOwnWork(_:)``).
    package static func failure(for finding: Finding, engine: DiagnosticsEngine, allowHint: String) -> Failure {
        let shown = WorkInFlight.asOwnWork { engine.presentable(finding, resolvingLines: true) }
        let kind = finding.kind.rawValue
        let text = FindingText.describe(
            shown.finding, stack: { shown.stacks[$0] }, imagePath: { shown.images[$0]?.path })
        let message =
            "ReactiveDiagnostics: " + text + "\n"
            + "  not a bug here? \(allowHint), or suppress it run-wide with a '\(kind):PATTERN' line "
            + "in the file named by REACTIVE_DIAGNOSTICS_SUPPRESSIONS"
        var failure = Failure(message: message)
        if let culprit = FindingPlacement.culprit(of: shown.finding, stacks: { shown.stacks[$0] }),
            let file = culprit.frame.file, let line = culprit.frame.line
        {
            failure.line = SourceLine(file: file, line: line, column: culprit.frame.column ?? 0)
            failure.module = culprit.frame.module
        }
        return failure
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
        FrameClassifier.shared.addFrameworkModules(
            generatedTestModules(processName: ProcessInfo.processInfo.processName))
    }

    /// `Name.xctest` gives `Name` and, when it ends in `PackageTests`, the matching
    /// `PackageDiscoveredTests` module (see ``FrameClassifier/generatedTestModules(processName:)``).
    package static func generatedTestModules(processName: String) -> [String] {
        FrameClassifier.generatedTestModules(processName: processName)
    }
}
