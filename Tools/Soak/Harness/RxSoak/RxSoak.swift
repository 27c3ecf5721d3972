import Foundation
import ReactiveDiagnosticsXCTest
import RxDiagnostics
@preconcurrency import RxSwift
import SoakStart
import XCTest

/// The soak harness of RxSwift's suite, linked into the suite's test binary by the package
/// `Tools/soak.sh` generates. `SoakStart`'s constructor calls it before `main`;
/// `REACTIVE_DIAGNOSTICS_SOAK_MODE` says what to switch on:
///
/// - `off` (or unset): nothing; the suite runs as its authors run it.
/// - `control`: RxSwift's own call-stack recording (`Hooks.recordCallStackOnError`), which
///   `RxDiagnosticsHooks` needs: the control run that tells RxSwift's hooks apart from ours.
/// - `on`: `RxDiagnosticsHooks.install()` and the XCTest glue
///   (`ReactiveDiagnosticsXCTest.install()`) for every test of the run.
///
/// RxSwift's hooks are global variables that tests may replace (RxSwift's own suite tests
/// them: `ObservableSubscriptionTest.testCustomCaptureSubscriptionCallstack` replaces
/// `customCaptureSubscriptionCallstack` and `defaultErrorHandler` and never restores them);
/// the harness sets them again before each test, so the whole run stays instrumented.
/// `RxDiagnosticsHooks.install()` alone would not: installed already, it changes nothing, so
/// the harness restores RxSwift's hooks (`uninstall()`) and installs ours over them.
@_cdecl("reactive_diagnostics_soak_start")
func reactiveDiagnosticsSoakStart() {
    let mode = ProcessInfo.processInfo.environment["REACTIVE_DIAGNOSTICS_SOAK_MODE"] ?? "off"
    guard mode == "control" || mode == "on" else { return }
    if mode == "on" {
        ReactiveDiagnosticsXCTest.install()
    }
    let observer = HookKeeper(installsDiagnostics: mode == "on")
    observer.install()
    XCTestObservationCenter.shared.addTestObserver(observer)
}

/// Installs the mode's hooks, and installs them again before every test.
final class HookKeeper: NSObject, XCTestObservation, Sendable {
    let installsDiagnostics: Bool

    init(installsDiagnostics: Bool) {
        self.installsDiagnostics = installsDiagnostics
    }

    func install() {
        if installsDiagnostics {
            RxDiagnosticsHooks.uninstall()
            RxDiagnosticsHooks.install()
        } else {
            Hooks.recordCallStackOnError = true
        }
    }

    func testCaseWillStart(_ testCase: XCTestCase) {
        install()
    }
}
