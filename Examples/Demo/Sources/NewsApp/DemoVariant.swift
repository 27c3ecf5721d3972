import Foundation

/// Which version of the app runs: with the classic bugs (the default) or with their fixes
/// (`DEMO_FIXED=1`). Every bug sits next to its fix, so reading one file shows both.
public enum DemoVariant {
    /// Whether the fixed code runs.
    public static var fixesApplied: Bool {
        ProcessInfo.processInfo.environment["DEMO_FIXED"] == "1"
    }
}
