import Foundation

/// How the engine behaves: stack capture, policies, settling, the report.
///
/// Every setting can also come from an environment variable with the prefix
/// `REACTIVE_DIAGNOSTICS_` (see ``init(environment:)``), so CI can change behaviour without
/// touching code.
///
/// ```swift
/// var configuration = Configuration()
/// configuration.stackDepth = 32
/// configuration.policies.set(.record, for: .warning)
/// configuration.settleTime = .milliseconds(800)
/// DiagnosticsEngine.shared.configure(configuration)
/// ```
public struct Configuration: Sendable {
    /// Master switch: when `false` adapters pass events through without checks.
    public var isEnabled = true
    /// Capture an allocation stack for every tracked resource.
    public var capturesAllocationStacks = true
    /// Capture the stack of every offending event (only on the slow path of a finding).
    public var capturesEventStacks = true
    /// Frames captured per stack (1…512).
    public var stackDepth = StackCapture.defaultDepth
    /// Capture stacks along frame pointers wherever libunwind confirmed them (see
    /// `StackCapture`); `false` walks every stack with libunwind. Process-wide: the last
    /// engine configured decides.
    public var capturesAlongFramePointers = true
    /// What each finding does.
    public var policies = PolicyTable()
    /// How long a test's end waits for deallocation and main-queue work before counting leaks.
    public var settleTime: Duration = .milliseconds(500)
    /// How often the settle loop looks again.
    public var settlePollInterval: Duration = .milliseconds(25)
    /// End the settle wait as soon as nothing that could still release what the test left
    /// alive is in flight (Linux): no other thread running or in a timed sleep, no
    /// `dispatch_after` work (`asyncAfter`, a scheduler's `schedule(after:)`, `Task.sleep`) due
    /// within the settle time, no task of the test running or enqueued, the main queue drained,
    /// and the same resources alive at two looks in a row. What is left then is decided: a
    /// leaking test pays about a millisecond instead of ``settleTime``. `false` always waits
    /// the settle time for a test that leaks (work the library cannot see: a timer of a run
    /// loop other than the main one, a thread blocked on a socket that will release something).
    public var settlesWhenIdle = true
    /// Where the report goes; `%p` becomes the process id, `%n` the process name.
    public var reportPath = ".build/reactive-diagnostics/report-%n-%p.json"
    /// Whether reports are written at all.
    public var writesReport = true
    /// Whether a summary is printed on standard error when the report is written.
    public var printsSummary = true
    /// Known findings to suppress.
    public var suppressions = Suppressions()
    /// Findings a baseline accepts: they neither fail their test nor are explained again (see
    /// ``AcceptedFindings``).
    public var acceptedFindings = AcceptedFindings()
    /// Extra modules to fold like frameworks in stacks.
    public var frameworkModules: [String] = []
    /// Default threshold above which a scheduled action is a ``FindingKind/longAction``.
    public var longActionThreshold: Duration = .milliseconds(250)
    /// Findings kept in memory; more are counted as dropped.
    public var maximumFindings = 1_000_000
    /// Whether source lines are resolved (through `llvm-symbolizer`) when a report is written,
    /// when a finding fails a test, and for the closures of retain paths (their line and their
    /// captures' names). Off, reports say so in `sourceLines`, failures fall back to the test's
    /// own location and retain paths name closures without a line;
    /// `REACTIVE_DIAGNOSTICS_SYMBOLIZER=none` turns it off too.
    public var resolvesSourceLines = true
    /// Explain every leaked subscription: walk the references it holds at the checkpoint and
    /// report the retain cycle it belongs to (see `ReportRetainPath`).
    public var explainsRetainPaths = true
    /// How far that walk goes for one subscription.
    public var retainPathLimits = RetainPathLimits()
    /// How deliveries that change threads are held open to meet a concurrent emitter.
    public var threadHopProbe = ThreadHopProbe()
    /// Whether every unstructured task started during a test (`Task { }`, `Task.detached { }`,
    /// in the app's code as in the test's) is followed, so that one still running at the test's
    /// end is a finding at its `Task {` line, with where it is suspended. Where the platform
    /// cannot see task starts (see ``DiagnosticsEngine/seesUnstructuredTasks``) the test glue's
    /// task-local marker still counts them.
    public var tracksUnstructuredTasks = true
    /// Whether misuse of plain `AsyncStream`, `AsyncThrowingStream` and `CheckedContinuation`
    /// in the code under test is a finding, with the app's code left as it is: a yield after
    /// `finish()` (``FindingKind/valueAfterTermination``), a second finish
    /// (``FindingKind/duplicateTermination``), a second iterator of one stream
    /// (``FindingKind/concurrentIteration``), yields after the consumer went away
    /// (``FindingKind/valueAfterCancel``) and a continuation resumed twice
    /// (``FindingKind/callbackCalledTwice``, the second resume dropped instead of stopping the
    /// process). Only where the platform sees those calls (see
    /// ``DiagnosticsEngine/seesStreamMisuse``); `REACTIVE_DIAGNOSTICS_STREAM_HOOKS=0` turns it off.
    public var checksStreamMisuse = true

    /// Default configuration.
    public init() {}

    /// The environment variable prefix.
    public static let environmentPrefix = "REACTIVE_DIAGNOSTICS_"

    /// Reads the configuration from environment variables over the defaults.
    ///
    /// | variable | meaning | example |
    /// |---|---|---|
    /// | `REACTIVE_DIAGNOSTICS_ENABLED` | master switch | `0` |
    /// | `REACTIVE_DIAGNOSTICS_STACKS` | capture allocation stacks | `0` |
    /// | `REACTIVE_DIAGNOSTICS_EVENT_STACKS` | capture offending-event stacks | `0` |
    /// | `REACTIVE_DIAGNOSTICS_STACK_DEPTH` | frames per stack | `32` |
    /// | `REACTIVE_DIAGNOSTICS_FRAME_POINTERS` | capture along confirmed frame pointers | `0` |
    /// | `REACTIVE_DIAGNOSTICS_POLICY` | policies by severity or kind | `warning=fail,valueAfterCancel=ignore` |
    /// | `REACTIVE_DIAGNOSTICS_SETTLE_MS` | settle time at test end | `1000` |
    /// | `REACTIVE_DIAGNOSTICS_SETTLE_WHEN_IDLE` | end the settle wait when no work is in flight | `0` |
    /// | `REACTIVE_DIAGNOSTICS_REPORT` | report path (`%p` pid, `%n` process name) | `/tmp/rd-%p.json` |
    /// | `REACTIVE_DIAGNOSTICS_WRITE_REPORT` | write a report | `0` |
    /// | `REACTIVE_DIAGNOSTICS_SUMMARY` | print the summary on standard error | `0` |
    /// | `REACTIVE_DIAGNOSTICS_SUPPRESSIONS` | suppressions file | `.reactive-diagnostics-suppressions` |
    /// | `REACTIVE_DIAGNOSTICS_BASELINE` | baseline whose findings are accepted | `reactive-diagnostics-baseline.json` |
    /// | `REACTIVE_DIAGNOSTICS_FRAMEWORK_MODULES` | modules folded like frameworks | `MyKit,Vendor` |
    /// | `REACTIVE_DIAGNOSTICS_LONG_ACTION_MS` | long-action threshold | `100` |
    /// | `REACTIVE_DIAGNOSTICS_MAX_FINDINGS` | findings kept in memory | `100000` |
    /// | `REACTIVE_DIAGNOSTICS_RETAIN_PATHS` | explain leaked subscriptions' retain paths | `0` |
    /// | `REACTIVE_DIAGNOSTICS_TASKS` | follow every unstructured task started during a test | `0` |
    /// | `REACTIVE_DIAGNOSTICS_STREAM_HOOKS` | check plain streams and checked continuations | `0` |
    /// | `REACTIVE_DIAGNOSTICS_RETAIN_PATH_MS` | time limit of one retain-path walk | `50` |
    /// | `REACTIVE_DIAGNOSTICS_HOP_PROBES` | first thread-hop probes per stream (`0`: probing off) | `0` |
    /// | `REACTIVE_DIAGNOSTICS_HOP_PROBE_BUDGET_MS` | what all thread-hop probes may wait | `200` |
    ///
    /// - Throws: ``ConfigurationError`` naming the variable whose value is not understood.
    public init(environment: [String: String]) throws(ConfigurationError) {
        self.init()
        func value(_ name: String) -> String? {
            environment[Self.environmentPrefix + name].flatMap { $0.isEmpty ? nil : $0 }
        }
        func flag(_ name: String) throws(ConfigurationError) -> Bool? {
            guard let text = value(name) else { return nil }
            switch text.lowercased() {
            case "1", "true", "yes", "on": return true
            case "0", "false", "no", "off": return false
            default:
                throw ConfigurationError(
                    "\(Self.environmentPrefix)\(name)='\(text)' is not 1/0, true/false, yes/no or on/off")
            }
        }
        func number(_ name: String, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int? {
            guard let text = value(name) else { return nil }
            guard let number = Int(text), range.contains(number) else {
                throw ConfigurationError(
                    "\(Self.environmentPrefix)\(name)='\(text)' is not a whole number in \(range.lowerBound)...\(range.upperBound)"
                )
            }
            return number
        }
        if let enabled = try flag("ENABLED") { isEnabled = enabled }
        if let stacks = try flag("STACKS") { capturesAllocationStacks = stacks }
        if let stacks = try flag("EVENT_STACKS") { capturesEventStacks = stacks }
        if let depth = try number("STACK_DEPTH", in: 1...StackCapture.maximumDepth) { stackDepth = depth }
        if let framePointers = try flag("FRAME_POINTERS") { capturesAlongFramePointers = framePointers }
        if let policy = value("POLICY") {
            do {
                try policies.apply(policy)
            } catch {
                throw ConfigurationError("\(Self.environmentPrefix)POLICY: \(error.message)")
            }
        }
        if let settle = try number("SETTLE_MS", in: 0...600_000) { settleTime = .milliseconds(settle) }
        if let idle = try flag("SETTLE_WHEN_IDLE") { settlesWhenIdle = idle }
        if let path = value("REPORT") { reportPath = path }
        if let write = try flag("WRITE_REPORT") { writesReport = write }
        if let summary = try flag("SUMMARY") { printsSummary = summary }
        if let path = value("SUPPRESSIONS") {
            suppressions = try Suppressions(contentsOf: URL(fileURLWithPath: path))
        }
        if let path = value("BASELINE") {
            acceptedFindings = try AcceptedFindings(contentsOf: URL(fileURLWithPath: path))
        }
        if let modules = value("FRAMEWORK_MODULES") {
            frameworkModules = modules.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        if let threshold = try number("LONG_ACTION_MS", in: 1...3_600_000) {
            longActionThreshold = .milliseconds(threshold)
        }
        if let maximum = try number("MAX_FINDINGS", in: 1...100_000_000) { maximumFindings = maximum }
        if let explains = try flag("RETAIN_PATHS") { explainsRetainPaths = explains }
        if let tracks = try flag("TASKS") { tracksUnstructuredTasks = tracks }
        if let checks = try flag("STREAM_HOOKS") { checksStreamMisuse = checks }
        if let limit = try number("RETAIN_PATH_MS", in: 1...60_000) { retainPathLimits.time = .milliseconds(limit) }
        if let probes = try number("HOP_PROBES", in: 0...255) {
            threadHopProbe.probesPerStream = probes
            if probes == 0 { threadHopProbe.thereafterEvery = 0 }
        }
        if let budget = try number("HOP_PROBE_BUDGET_MS", in: 0...3_600_000) {
            threadHopProbe.budget = .milliseconds(budget)
        }
    }

    /// The report path with `%p` and `%n` expanded for this process.
    public var resolvedReportPath: String {
        let process = ProcessInfo.processInfo
        return
            reportPath
            .replacingOccurrences(of: "%p", with: String(process.processIdentifier))
            .replacingOccurrences(of: "%n", with: Self.sanitize(process.processName))
    }

    private static func sanitize(_ name: String) -> String {
        String(name.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." ? $0 : "_" })
    }
}

/// A configuration value that is not understood. Its message names the setting.
///
/// ```swift
/// var policies = PolicyTable()
/// do {
///     try policies.apply("leakedSubscription=explode")
/// } catch {
///     print(error)   // names the setting and what it accepts
/// }
/// ```
public struct ConfigurationError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What is wrong, naming the variable, file or entry.
    public var message: String

    /// Creates an error.
    public init(_ message: String) {
        self.message = message
    }

    /// The message: which variable or value was wrong, and what is accepted.
    public var description: String { message }
}
