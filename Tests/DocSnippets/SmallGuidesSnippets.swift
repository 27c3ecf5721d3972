// The blocks of Docs/Configuration.md, Docs/ReportFormat.md and Docs/ReactiveDiagTool.md,
// verbatim (see this folder's README.md).

import Foundation
import ReactiveDiagTool
import ReactiveDiagnostics
import ReactiveDiagnosticsReport

/// The snippets of the guides with one block each.
enum SmallGuides {}

// Docs/Configuration.md, "In code"
extension SmallGuides {
    static func configureInCode() {
        DiagnosticsEngine.shared.updateConfiguration { configuration in
            configuration.stackDepth = 32
            configuration.policies.set(.fail, for: .warning)             // warnings fail tests too
            configuration.policies.set(.ignore, for: .valueAfterCancel)  // in-flight values: not interesting here
            configuration.settleTime = .seconds(1)
        }
    }
}

// Docs/ReportFormat.md
extension SmallGuides {
    static func unsuppressedLeaks(path: String) throws -> [ReportFinding] {
        let report = try DiagnosticsReport.load(from: URL(fileURLWithPath: path))
        let leaks = report.findings.filter { $0.kind == "leakedSubscription" && $0.suppressedBy == nil }
        return leaks
    }
}

// Docs/ReactiveDiagTool.md, "Using the tool as a library"
extension SmallGuides {
    static func gateInProcess() -> (Int32, String) {
        let out = StringSink(), err = StringSink()
        let code = ReactiveDiag.run(arguments: ["gate", "merged.json", "--baseline", "baseline.json"],
                                    stdout: out, stderr: err)
        // code: ExitStatus.success, .newFindings or .unusableInput; err.text holds the verdict
        _ = out
        return (code, err.text)
    }
}
