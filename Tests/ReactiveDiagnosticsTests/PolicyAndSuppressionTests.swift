import Foundation
@_spi(Integration) import ReactiveDiagnostics
import Testing

@Suite("Policies, suppressions and fingerprints")
struct PolicyAndSuppressionTests {
    func violate(_ engine: DiagnosticsEngine, label: String = "feed") {
        let monitor = engine.makeStreamMonitor(label: DiagnosticLabel(label))
        monitor.receivedSubscription()
        monitor.receivedSubscription()
        monitor.cancelled()
    }

    @Test func defaultPolicyFailsOnErrorsAndRecordsTheRest() {
        let table = PolicyTable()
        #expect(table.policy(for: .leakedSubscription, severity: .error) == .fail)
        #expect(table.policy(for: .reentrantDelivery, severity: .warning) == .record)
        #expect(table.policy(for: .valueAfterCancel, severity: .info) == .record)
    }

    @Test func policiesParseByKindAndSeverity() throws {
        var table = PolicyTable()
        try table.apply("warning=fail, valueAfterCancel=ignore,error=record")
        #expect(table.policy(for: .reentrantDelivery, severity: .warning) == .fail)
        #expect(table.policy(for: .valueAfterCancel, severity: .info) == .ignore)
        #expect(table.policy(for: .leakedSubscription, severity: .error) == .record)
        #expect(throws: ConfigurationError.self) { try table.apply("error=explode") }
        #expect(throws: ConfigurationError.self) { try table.apply("nonsense") }
    }

    @Test func recordedFindingsCarryTheirPolicy() {
        let engine = makeEngine { $0.policies.set(.record, for: .duplicateSubscription) }
        violate(engine)
        #expect(engine.findings().first?.policy == .record)
        #expect(engine.findings().first?.failsTest == false)
    }

    @Test func ignoredFindingsAreCountedAsSuppressed() {
        let engine = makeEngine { $0.policies.set(.ignore, for: .duplicateSubscription) }
        violate(engine)
        let finding = engine.findings().first
        #expect(finding?.suppressedBy == "policy:ignore" && finding?.failsTest == false)
        #expect(finding?.eventStack == StackID.none, "no stack is captured for ignored findings")
    }

    @Test(arguments: [
        ("Vendor", "LegacyVendor.Cache", true),
        ("^Vendor", "LegacyVendor.Cache", false),
        ("^Legacy*Cache$", "LegacyVendor.Cache", true),
        ("Cache$", "LegacyVendor.Cache.get", false),
        ("*", "anything", true),
        ("a*b*c", "xxaxxbxxcxx", true),
        ("a*b*c", "xxaxxcxxbxx", false),
    ])
    func patternsMatchLikeLeakSanitizer(pattern: String, text: String, matches: Bool) {
        #expect(Suppressions.Rule(type: "*", pattern: pattern).matches(text) == matches)
    }

    @Test func suppressionFilesParseAndReportBadLines() throws {
        let rules = try Suppressions(
            parsing: """
                # known leaks in vendored code
                leak:VendorSDK
                valueAfterCancel: ^Legacy   # trailing comment

                *:noisy-label
                """)
        #expect(rules.rules.map(\.description) == ["leak:VendorSDK", "valueAfterCancel:^Legacy", "*:noisy-label"])
        #expect(rules.rules[0].applies(to: .uncancelledTimer) && !rules.rules[0].applies(to: .demandExceeded))
        #expect(throws: ConfigurationError("suppressions:2: 'no colon here' is not TYPE:PATTERN")) {
            try Suppressions(parsing: "leak:x\nno colon here")
        }
    }

    @Test func suppressionsMatchLabelsAndFrames() throws {
        let byLabel = makeEngine {
            $0.suppressions = Suppressions(rules: [.init(type: "duplicateSubscription", pattern: "vendor-")])
        }
        violate(byLabel, label: "vendor-feed")
        let finding = try #require(byLabel.findings().first)
        #expect(byLabel.applySuppressions(to: finding) == "duplicateSubscription:vendor-")
        #expect(byLabel.latest(finding).failsTest == false)

        let byFrame = makeEngine {
            $0.suppressions = Suppressions(rules: [.init(type: "*", pattern: "PolicyAndSuppressionTests.violate")])
        }
        violate(byFrame)
        #expect(byFrame.applySuppressions(to: try #require(byFrame.findings().first)) != nil)

        let unrelated = makeEngine { $0.suppressions = Suppressions(rules: [.init(type: "leak", pattern: "feed")]) }
        violate(unrelated)
        #expect(
            unrelated.applySuppressions(to: try #require(unrelated.findings().first)) == nil,
            "leak rules cover lifetime kinds only")
    }

    @Test func fingerprintsIgnoreAddressesButNotKindOrLabel() throws {
        let engine = makeEngine()
        violate(engine)
        violate(engine)  // same site, called again
        violate(engine, label: "other")
        let findings = engine.findings()
        try #require(findings.count == 3)
        let prints = findings.map { engine.fingerprint(of: $0) }
        #expect(prints[0] == prints[1])
        #expect(prints[0] != prints[2])
        #expect(prints.allSatisfy { $0.count == 16 && $0.allSatisfy(\.isHexDigit) })
    }

    @Test func fingerprintsDependOnSymbolsNotOnRawAddresses() throws {
        // A stack whose innermost return address moved within the same function (as after
        // a rebuild, or under ASLR) must keep its fingerprint; a different label must not.
        let engine = makeEngine()
        let original = engine.captureStack()
        var moved = engine.stacks.addresses(of: original)
        moved[0] += 1
        let shifted = engine.stacks.intern(moved)
        #expect(shifted != original)
        #expect(engine.symbolize(shifted).frames.first?.function == engine.symbolize(original).frames.first?.function)
        let findings = [original, shifted, original].enumerated().compactMap { index, stack in
            engine.record(
                FindingDraft(
                    kind: .leakedSubscription, message: "m", label: index == 2 ? "other" : "feed",
                    allocationStack: stack))
        }
        try #require(findings.count == 3)
        #expect(engine.fingerprint(of: findings[0]) == engine.fingerprint(of: findings[1]))
        #expect(engine.fingerprint(of: findings[0]) != engine.fingerprint(of: findings[2]))
    }
}
