import Foundation

// soak-check: compares a suite's runs without and with ReactiveDiagnostics and checks every
// finding against the triage file. Built and run by Tools/soak.sh; standard error carries
// the summary, exit status 1 a failure (a test that did not finish, a test the
// instrumentation ended differently, a discovery mismatch, an untriaged finding).
//
//   soak-check --suite NAME --listed FILE --off LOG --control LOG --on LOG
//              [--rerun off|control|on=LOG]... [--skipped FILE]
//              --reports DIR --triage FILE [--wall off=S --wall control=S --wall on=S]
//              [--results FILE] [--untriaged FILE] [--differences FILE]

struct Options {
    var values: [String: [String]] = [:]

    init(_ arguments: [String]) throws {
        var index = 0
        while index < arguments.count {
            let name = arguments[index]
            guard name.hasPrefix("--"), index + 1 < arguments.count else {
                throw SoakError("soak-check: expected --name value, got '\(name)'")
            }
            values[String(name.dropFirst(2)), default: []].append(arguments[index + 1])
            index += 2
        }
    }

    func one(_ name: String) throws -> String {
        guard let value = values[name]?.last else { throw SoakError("soak-check: --\(name) is required") }
        return value
    }

    func optional(_ name: String) -> String? {
        values[name]?.last
    }

    /// `--name key=value` pairs.
    func pairs(_ name: String) -> [(String, String)] {
        (values[name] ?? []).compactMap { pair in
            pair.firstIndex(of: "=").map { (String(pair[..<$0]), String(pair[pair.index(after: $0)...])) }
        }
    }
}

func read(_ path: String) throws -> String {
    try String(contentsOf: URL(fileURLWithPath: path), encoding: .utf8)
}

func lines(_ path: String?) throws -> [String] {
    guard let path else { return [] }
    return try read(path).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
}

func check() throws -> Bool {
    let options = try Options(Array(CommandLine.arguments.dropFirst()))
    let suite = try options.one("suite")
    let walls = Dictionary(
        options.pairs("wall").compactMap { key, value in Double(value).map { (key, $0) } }, uniquingKeysWith: { $1 })
    var reruns: [String: [TestLog]] = [:]
    for (mode, path) in options.pairs("rerun") {
        reruns[mode, default: []].append(TestLog(text: try read(path)))
    }
    let transparency = Transparency(
        listed: try lines(options.one("listed")).map(TestLog.testName),
        skipped: Set(try lines(options.optional("skipped")).map(TestLog.testName)),
        off: TestLog(text: try read(options.one("off"))),
        control: TestLog(text: try read(options.one("control"))),
        on: TestLog(text: try read(options.one("on"))),
        reruns: reruns)

    let findings = try SoakFindings(directory: URL(fileURLWithPath: options.one("reports")))
    let triage = try Triage(contentsOf: URL(fileURLWithPath: options.one("triage")))
    var untriaged: [String: Triage.Entry] = [:]
    var verdicts: [Triage.Verdict: Int] = [:]
    var byKind: [String: Int] = [:]
    for item in findings.unsuppressed {
        byKind[item.kind, default: 0] += 1
        // A folded chain answers to its own fingerprint, then to those its stages had.
        if let entry = ([item.fingerprint] + item.stageFingerprints).lazy.compactMap({
            triage.entry(suite: suite, fingerprint: $0)
        }).first {
            verdicts[entry.verdict, default: 0] += 1
        } else if untriaged[item.fingerprint] == nil {
            let evidence = ["label '\(item.label)'", item.actor.map { "by \($0)" }].compactMap { $0 }.joined(
                separator: "; ")
            untriaged[item.fingerprint] = Triage.Entry(
                suite: suite, test: item.test, kind: item.kind, fingerprint: item.fingerprint, verdict: .true,
                reason: "UNTRIAGED: \(evidence)")
        }
    }
    let seen = Set(findings.unsuppressed.map(\.fingerprint))
    // Triage lines of stages now folded into their chain's finding are seen through it.
    let answered = seen.union(findings.unsuppressed.flatMap(\.stageFingerprints))
    let lifetimeKinds: Set<String> = [
        "leakedSubscription", "leakedResource", "pendingAction", "uncancelledTimer", "callbackNeverCalled",
        "observerNotRemoved",
    ]
    let leakingTests = Set(findings.unsuppressed.filter { lifetimeKinds.contains($0.kind) }.map(\.test))
    func extra(_ tests: some Sequence<String>) -> Double {
        tests.reduce(0) { sum, test in
            guard let on = transparency.on.durations[test], let control = transparency.control.durations[test] else {
                return sum
            }
            return sum + (on - control)
        }
    }
    let triagedNotSeen = triage.entries.values.filter { $0.suite == suite && !answered.contains($0.fingerprint) }.count

    func run(_ log: TestLog, _ mode: String) -> SoakResults.Run {
        SoakResults.Run(
            passed: transparency.count(.passed, in: log), failed: transparency.count(.failed, in: log),
            skipped: transparency.count(.skipped, in: log), unfinished: transparency.count(.unfinished, in: log),
            wallSeconds: walls[mode])
    }
    let ours = transparency.ours
    let frameworks = transparency.frameworks
    let untriagedEntries = untriaged.values.sorted {
        ($0.test, $0.kind, $0.fingerprint) < ($1.test, $1.kind, $1.fingerprint)
    }
    let results = SoakResults(
        suite: suite, discovered: transparency.listed.count, notRunUnderHooks: transparency.skipped.sorted(),
        off: run(transparency.off, "off"), control: run(transparency.control, "control"),
        on: run(transparency.on, "on"),
        discoveryMismatches: transparency.discoveryMismatches, unfinished: transparency.unfinished,
        oursConfirmed: ours.confirmed, oursFlaky: ours.flaky,
        frameworkHook: frameworks.confirmed, frameworkFlaky: frameworks.flaky,
        findings: SoakResults.Findings(
            total: findings.unsuppressed.count, suppressed: findings.items.count - findings.unsuppressed.count,
            fingerprints: seen.count, truePositives: verdicts[.true] ?? 0, falsePositives: verdicts[.false] ?? 0,
            untriaged: findings.unsuppressed.filter { untriaged[$0.fingerprint] != nil }.count, byKind: byKind,
            processes: findings.processes, partialProcesses: findings.partialProcesses, triagedNotSeen: triagedNotSeen),
        untriaged: untriagedEntries,
        extraTestSeconds: extra(transparency.listed), extraSecondsInTestsWithLeaks: extra(leakingTests),
        testsWithLeaks: leakingTests.count)

    if let path = options.optional("results") {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(results).write(to: URL(fileURLWithPath: path))
    }
    if let path = options.optional("differences") {
        // The tests to re-run: those two runs ended differently.
        let tests = Set((ours.confirmed + ours.flaky + frameworks.confirmed + frameworks.flaky).map(\.test)).sorted()
        try (tests.isEmpty ? "" : tests.joined(separator: "\n") + "\n").write(
            toFile: path, atomically: true, encoding: .utf8)
    }
    if let path = options.optional("untriaged") {
        let text = untriagedEntries.map(Triage.line).joined(separator: "\n")
        try (text.isEmpty ? "" : text + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    }
    FileHandle.standardError.write(Data((results.text + "\n").utf8))
    return results.passes
}

do {
    exit(try check() ? 0 : 1)
} catch {
    FileHandle.standardError.write(Data("soak-check: \(error)\n".utf8))
    exit(2)
}
