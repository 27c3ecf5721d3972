/// Does a run with the instrumentation end every test as the same run without it does?
///
/// Three runs of one test binary: `off` (nothing switched on), `control` (the framework's own
/// hook switched on with a handler that does nothing: OpenCombine's `_Introspection` taps,
/// RxSwift's call-stack recording) and `on` (ReactiveDiagnostics). A test that ends
/// differently `on` than in `control` is a difference of ours (a transparency failure, unless
/// re-runs show the test flaky on its own); one that ends differently in `control` than
/// `off` is the framework's hook, shown with a handler that does nothing.
struct Transparency {
    struct Difference: Codable, Hashable {
        var test: String
        var off: TestLog.Status?
        var control: TestLog.Status?
        var on: TestLog.Status?
    }

    /// The tests discovered (`swift test --list-tests`), `Class/test`.
    var listed: [String]
    /// Tests deliberately not run under a hook (they hang under any handler), `Class/test`.
    var skipped: Set<String>
    var off: TestLog
    var control: TestLog
    var on: TestLog
    /// Extra runs of the tests that differed, by mode: a test is flaky when a mode does not
    /// always end it the same way, or when the re-runs of both modes agree.
    var reruns: [String: [TestLog]] = [:]

    /// Listed tests that no run reported at all, and tests reported that were never listed.
    var discoveryMismatches: [String] {
        let listedSet = Set(listed)
        var reported = Set(off.statuses.keys)
        reported.formUnion(control.statuses.keys)
        reported.formUnion(on.statuses.keys)
        let notRun = listedSet.subtracting(reported).subtracting(skipped).map { "\($0): discovered, never run" }
        let unlisted = reported.subtracting(listedSet).map { "\($0): run, never discovered" }
        return (notRun + unlisted).sorted()
    }

    /// Tests that did not finish in some run (crash, hang).
    var unfinished: [Difference] {
        listed.filter { !skipped.contains($0) }.compactMap { test in
            let statuses = [off.statuses[test], control.statuses[test], on.statuses[test]]
            return statuses.contains(.unfinished) ? difference(test) : nil
        }
    }

    /// Tests the instrumentation ended differently from the control run, re-runs considered.
    var ours: (confirmed: [Difference], flaky: [Difference]) {
        differences(between: ("control", control), and: ("on", on))
    }

    /// Tests the framework's own hook ended differently from the plain run, re-runs considered.
    var frameworks: (confirmed: [Difference], flaky: [Difference]) {
        differences(between: ("off", off), and: ("control", control))
    }

    /// The tests two runs ended differently: `confirmed` when every re-run of each mode ended
    /// it as that mode's run did, `flaky` when a mode did not always end it the same way.
    private func differences(
        between first: (mode: String, log: TestLog), and second: (mode: String, log: TestLog)
    ) -> (confirmed: [Difference], flaky: [Difference]) {
        var confirmed: [Difference] = []
        var flaky: [Difference] = []
        for test in listed where !skipped.contains(test) {
            guard let a = first.log.statuses[test], let b = second.log.statuses[test], a != b else { continue }
            let firstRuns = Set((reruns[first.mode] ?? []).compactMap { $0.statuses[test] } + [a])
            let secondRuns = Set((reruns[second.mode] ?? []).compactMap { $0.statuses[test] } + [b])
            if firstRuns.count == 1 && secondRuns.count == 1 {
                confirmed.append(difference(test))
            } else {
                flaky.append(difference(test))
            }
        }
        return (confirmed, flaky)
    }

    func count(_ status: TestLog.Status, in log: TestLog) -> Int {
        listed.filter { !skipped.contains($0) && log.statuses[$0] == status }.count
    }

    private func difference(_ test: String) -> Difference {
        Difference(test: test, off: off.statuses[test], control: control.statuses[test], on: on.statuses[test])
    }
}
