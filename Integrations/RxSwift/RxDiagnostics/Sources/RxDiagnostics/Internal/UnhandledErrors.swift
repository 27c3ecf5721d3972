#if RxSwift  // the package trait RxSwift (Package.swift): without it, this module is empty
import ReactiveDiagnostics

/// Records ``ReactiveDiagnostics/FindingKind/unhandledError`` findings.
enum UnhandledErrors {
    static func record(
        _ error: String, label: String?, recorder: any DiagnosticsRecorder, test: TestIdentity, allocationStack: StackID
    ) {
        let named = label.map { "'\($0)'" } ?? "a subscription"
        let recorded = recorder.report(
            FindingDraft(
                kind: .unhandledError,
                message:
                    "\(named) received an error but has no onError handler: \(error) (RxSwift only prints it in debug builds; handle it or catch it upstream)",
                label: label, resourceKind: .subscription, test: test, allocationStack: allocationStack,
                details: ["error": error]))
        if let recorded {
            recorder.trap(recorded)
        }
    }
}
#endif
