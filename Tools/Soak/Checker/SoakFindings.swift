import Foundation
import ReactiveDiagTool
import ReactiveDiagnosticsReport

/// Every finding of the instrumented run: the reports its processes wrote, and the crash
/// journals of those that died before writing one (OpenCombine's `assertCrashes` children
/// crash on purpose).
struct SoakFindings {
    struct Item: Codable, Hashable {
        var test: String
        var kind: String
        var fingerprint: String
        /// The fingerprints a folded chain's stages had as findings of their own (what older
        /// triage lines name).
        var stageFingerprints: [String] = []
        var label: String
        var severity: String
        var suppressedBy: String?
        /// The first frame of the offending event that is neither ReactiveDiagnostics, the
        /// runtime nor the framework's own forwarding: who did it (for triage).
        var actor: String?
        var processID: Int32
    }

    private(set) var items: [Item] = []
    private(set) var processes = 0
    private(set) var partialProcesses = 0

    init(directory: URL) throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        for name in names {
            let url = directory.appendingPathComponent(name)
            let report: DiagnosticsReport
            if name.hasSuffix(".json") {
                report = try DiagnosticsReport.load(from: url)
            } else if name.hasSuffix(".journal.jsonl"),
                !names.contains(String(name.dropLast(".journal.jsonl".count)) + ".json")
            {
                report = try Self.loadJournal(url)
                partialProcesses += 1
            } else {
                continue
            }
            processes += 1
            add(report)
        }
    }

    private mutating func add(_ report: DiagnosticsReport) {
        let stacks = Dictionary(report.stacks.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for finding in report.findings {
            items.append(
                Item(
                    test: finding.test.map(TestLog.testName) ?? "(no test)", kind: finding.kind,
                    fingerprint: finding.fingerprint, stageFingerprints: Array(finding.fingerprints.dropFirst()),
                    label: finding.label ?? "", severity: finding.severity.rawValue, suppressedBy: finding.suppressedBy,
                    actor: finding.eventStack.flatMap { stacks[$0] }.flatMap(Self.actor),
                    processID: report.run.processID))
        }
    }

    /// A crash journal as `reactive-diag` reads it: a child that died right after a finding
    /// (OpenCombine's `assertCrashes`) leaves its stacks raw, which the tool names (and gives
    /// the finding its fingerprint).
    static func loadJournal(_ url: URL) throws -> DiagnosticsReport {
        let named = FileManager.default.temporaryDirectory.appendingPathComponent(
            "soak-journal-\(getpid())-\(url.lastPathComponent).json")
        defer { try? FileManager.default.removeItem(at: named) }
        let errors = StringSink()
        let status = ReactiveDiag.run(
            arguments: ["merge", url.path, "-o", named.path], stdout: StringSink(), stderr: errors)
        guard status == 0 else {
            throw SoakError("reactive-diag merge \(url.path) failed (\(status)): \(errors.text)")
        }
        return try DiagnosticsReport.load(from: named)
    }

    var unsuppressed: [Item] {
        items.filter { $0.suppressedBy == nil }
    }

    /// Forwarding frames: the framework's taps, type erasers and the compiler's thunks.
    static let forwarding = [
        "SubscriberTap", "SubscriptionTap", "DebugHook", "AnySubscriber", "protocol witness", "thunk",
        "partial apply", "AnyObserver", "ObserverBase", "Sink.forward", "AnonymousObservableSink",
    ]

    static func actor(of stack: ReportStack) -> String? {
        stack.frames.first { frame in
            guard frame.category == .user || frame.category == .framework, let function = frame.function else {
                return false
            }
            return !forwarding.contains { function.contains($0) }
        }.map { "\($0.category == .user ? "test" : "framework"): \($0.function ?? "?")" }
    }
}
