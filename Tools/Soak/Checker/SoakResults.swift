import Foundation

/// One suite's soak: what `soak-check` writes as JSON for the summary table of
/// `Docs/Reliability.md`, and prints for a person.
struct SoakResults: Codable {
    struct Run: Codable {
        var passed: Int
        var failed: Int
        var skipped: Int
        var unfinished: Int
        /// The whole `swift test` invocation, in seconds.
        var wallSeconds: Double?
    }

    struct Findings: Codable {
        var total: Int
        var suppressed: Int
        var fingerprints: Int
        var truePositives: Int
        var falsePositives: Int
        var untriaged: Int
        var byKind: [String: Int]
        var processes: Int
        var partialProcesses: Int
        /// Triaged fingerprints of this suite the run did not raise (timing-dependent ones).
        var triagedNotSeen: Int
    }

    var suite: String
    var discovered: Int
    var notRunUnderHooks: [String]
    var off: Run
    var control: Run
    var on: Run
    var discoveryMismatches: [String]
    var unfinished: [Transparency.Difference]
    var oursConfirmed: [Transparency.Difference]
    var oursFlaky: [Transparency.Difference]
    var frameworkHook: [Transparency.Difference]
    var frameworkFlaky: [Transparency.Difference]
    var findings: Findings
    var untriaged: [Triage.Entry]
    /// What the instrumented run spent more than the control run inside the tests (XCTest's
    /// own per-test times), and how much of it went to the tests that left something alive:
    /// their end waits for it, up to the settle time, before it counts as a leak.
    var extraTestSeconds: Double
    var extraSecondsInTestsWithLeaks: Double
    var testsWithLeaks: Int

    /// Whether the soak passes: every test finished, none ended differently because of us, the
    /// same tests were discovered and run, every finding is triaged, and no false alarm the
    /// triage file records as fixed came back.
    var passes: Bool {
        discoveryMismatches.isEmpty && unfinished.isEmpty && oursConfirmed.isEmpty && untriaged.isEmpty
            && findings.falsePositives == 0
    }

    var ratio: Double? {
        guard let on = on.wallSeconds, let off = off.wallSeconds, off > 0 else { return nil }
        return on / off
    }

    /// The human summary (standard error).
    var text: String {
        func run(_ name: String, _ run: Run) -> String {
            let wall = run.wallSeconds.map { String(format: "%.1f s", $0) } ?? "?"
            return
                "  \(name.padding(toLength: 8, withPad: " ", startingAt: 0)) \(run.passed) passed, \(run.failed) failed"
                + (run.skipped > 0 ? ", \(run.skipped) skipped" : "")
                + (run.unfinished > 0 ? ", \(run.unfinished) UNFINISHED" : "")
                + " · \(wall)"
        }
        func tests(_ differences: [Transparency.Difference]) -> [String] {
            differences.map {
                "    \($0.test): off \($0.off?.rawValue ?? "-"), control \($0.control?.rawValue ?? "-"), on \($0.on?.rawValue ?? "-")"
            }
        }
        var lines = [
            "soak \(suite): \(discovered) tests discovered"
                + (notRunUnderHooks.isEmpty
                    ? "" : ", \(notRunUnderHooks.count) not run under a hook (they hang under any handler)")
        ]
        lines.append(run("off", off))
        lines.append(run("control", control))
        lines.append(run("on", on))
        if let ratio {
            lines.append(
                String(
                    format:
                        "  wall time on/off: %.2f×; inside the tests %.1f s more than control, %.1f s of it in the %d tests that left something alive (settle and explanation)",
                    ratio, extraTestSeconds, extraSecondsInTestsWithLeaks, testsWithLeaks))
        }
        if !discoveryMismatches.isEmpty {
            lines.append("  DISCOVERY: \(discoveryMismatches.count)")
            lines += discoveryMismatches.map { "    \($0)" }
        }
        if !unfinished.isEmpty {
            lines.append("  UNFINISHED (crash or hang): \(unfinished.count)")
            lines += tests(unfinished)
        }
        lines.append(
            "  transparency: \(oursConfirmed.count) difference(s) of ours"
                + (oursFlaky.isEmpty ? "" : ", \(oursFlaky.count) flaky test(s) (re-runs disagree)"))
        lines += tests(oursConfirmed)
        lines += tests(oursFlaky).map { $0 + " (flaky)" }
        if !frameworkHook.isEmpty || !frameworkFlaky.isEmpty {
            lines.append(
                "  the framework's own hook (control vs off): \(frameworkHook.count) test(s) end differently"
                    + (frameworkFlaky.isEmpty ? "" : ", \(frameworkFlaky.count) flaky test(s)"))
            lines += tests(frameworkFlaky).map { $0 + " (flaky)" }
        }
        lines.append(
            "  findings: \(findings.total) (+\(findings.suppressed) suppressed) in \(findings.fingerprints) fingerprints, "
                + "\(findings.truePositives) true, \(findings.falsePositives) false (fixed ones that came back), \(findings.untriaged) untriaged"
                + " · \(findings.processes) process(es), \(findings.partialProcesses) from crash journals")
        if !untriaged.isEmpty {
            lines.append("  UNTRIAGED fingerprints (add them to the triage file):")
            lines += untriaged.prefix(40).map { "    \(Triage.line($0))" }
            if untriaged.count > 40 {
                lines.append("    … \(untriaged.count - 40) more")
            }
        }
        lines.append(passes ? "  verdict: PASS" : "  verdict: FAIL")
        return lines.joined(separator: "\n")
    }
}
