import CombineDiagnostics
import Foundation
import OpenCombineShim
import ReactiveDiagnosticsXCTest
import SoakStart

/// The soak harness of a Combine suite (OpenCombine's, combine-schedulers'), linked into the
/// suite's test binary by the package `Tools/soak.sh` generates. `SoakStart`'s constructor
/// calls it before `main`; `REACTIVE_DIAGNOSTICS_SOAK_MODE` says what to switch on:
///
/// - `off` (or unset): nothing; the suite runs as its authors run it.
/// - `control`: an `_Introspection` handler that does nothing. OpenCombine then wraps every
///   subscriber and subscription in its own taps, as it does for any handler: the control
///   run that tells the framework's hook apart from ours.
/// - `on`: global instrumentation (`CombineInstrumentation.start()`) and the XCTest glue
///   (`ReactiveDiagnosticsXCTest.install()`) for every test of the run.
@_cdecl("reactive_diagnostics_soak_start")
func reactiveDiagnosticsSoakStart() {
    switch ProcessInfo.processInfo.environment["REACTIVE_DIAGNOSTICS_SOAK_MODE"] ?? "off" {
    case "control":
        EmptyIntrospection.shared.enable()
    case "on":
        ReactiveDiagnosticsXCTest.install()
        CombineInstrumentation.start()
    default:
        break
    }
}

/// An `_Introspection` handler that ignores every event.
final class EmptyIntrospection: _Introspection, Sendable {
    static let shared = EmptyIntrospection()
}
