import Foundation
import ReactiveDiagnosticsReport

/// Writes the gate's new findings as a SARIF 2.1.0 log: one rule per finding kind (the
/// rule id is the kind, so it is stable), one result per new fingerprint with
/// `partialFingerprints["reactiveDiagnostics/v1"]`, its location (a physical location when
/// file:line is known, else the function as a logical location) and its stacks as
/// `stacks[].frames`.
///
/// ```swift
/// var facts = GateFacts(evaluation: evaluation, stacks: stacks, paths: SourcePaths(root: "/repo"), liveSites: [])
/// let data = try SARIFWriter.encode(SARIFWriter.log(for: &facts))
/// ```
enum SARIFWriter {
    /// The key of the fingerprint in `partialFingerprints`.
    static let fingerprintKey = "reactiveDiagnostics/v1"
    /// Where people learn about the rules.
    static let informationURI = "https://github.com/reactive-diagnostics/ReactiveDiagnostics"
    /// The rule of a `--max-live` failure.
    static let liveRuleID = "liveResourcesAtEnd"

    /// The log for the new findings in `facts`.
    static func log(for facts: inout GateFacts) -> SARIFLog {
        let groups = facts.evaluation.newGroups
        var kinds = Set(KindCatalog.entries.map(\.kind))
        kinds.formUnion(groups.map(\.kind))
        kinds.insert(liveRuleID)
        let ruleIDs = kinds.sorted()
        let ruleIndex = Dictionary(uniqueKeysWithValues: ruleIDs.enumerated().map { ($1, $0) })
        let observedSeverity = Dictionary(groups.map { ($0.kind, $0.severity) }, uniquingKeysWith: max)
        let rules = ruleIDs.map { id in rule(id, observed: observedSeverity[id]) }

        var results: [SARIFLog.Result] = []
        for group in groups {
            results.append(result(for: group, ruleIndex: ruleIndex[group.kind] ?? 0, facts: &facts))
        }
        if facts.evaluation.liveExceeded {
            results.append(SARIFLog.Result(
                ruleId: liveRuleID, ruleIndex: ruleIndex[liveRuleID] ?? 0, level: "error",
                message: .init(text: facts.liveMessage), locations: [],
                partialFingerprints: [fingerprintKey: liveRuleID], stacks: [], baselineState: "new",
                properties: .init(count: facts.evaluation.liveTotal, tests: [], labels: [], findingIDs: [])))
        }
        let driver = SARIFLog.Driver(
            name: "reactive-diag", version: ReactiveDiag.version, semanticVersion: ReactiveDiag.version,
            informationUri: informationURI, rules: rules)
        let run = SARIFLog.Run(
            tool: .init(driver: driver),
            originalUriBaseIds: ["SRCROOT": SARIFLog.ArtifactLocation(uri: facts.paths.rootURI, uriBaseId: nil)],
            results: results)
        return SARIFLog(runs: [run])
    }

    /// Pretty-printed JSON with sorted keys.
    static func encode(_ log: SARIFLog) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(log) + Data("\n".utf8)
    }

    /// `error`, `warning` or `note`.
    static func level(_ severity: ReportSeverity) -> String {
        switch severity {
        case .error: return "error"
        case .warning: return "warning"
        case .info: return "note"
        }
    }

    private static func rule(_ id: String, observed: ReportSeverity?) -> SARIFLog.Rule {
        let entry = KindCatalog.entry(for: id)
        let summary = id == liveRuleID
            ? "More resources were alive at the end of the run than --max-live allows."
            : entry?.summary ?? "A ReactiveDiagnostics finding of kind \(id)."
        let severity = entry?.defaultSeverity ?? observed ?? .error
        let isLifetime = id == liveRuleID || lifetimeKinds.contains(id)
        let tags = ["reactive-diagnostics", isLifetime ? "lifetime" : "correctness"]
        return SARIFLog.Rule(
            id: id, name: id.prefix(1).uppercased() + id.dropFirst(), shortDescription: .init(text: summary),
            defaultConfiguration: .init(level: level(severity)), properties: .init(tags: tags))
    }

    private static let lifetimeKinds: Set<String> = [
        "leakedSubscription", "leakedResource", "uncancelledTimer", "pendingAction", "callbackNeverCalled",
        "observerNotRemoved", "prematureCancellation",
    ]

    private static func result(for group: FindingGroup, ruleIndex: Int, facts: inout GateFacts) -> SARIFLog.Result {
        let finding = group.representative
        var message = finding.message
        if group.count > 1 || !group.tests.isEmpty {
            message += " (×\(group.count)" + (group.tests.isEmpty ? "" : " in " + Formatting.list(group.tests, limit: 5)) + ")"
        }
        var locations: [SARIFLog.Location] = []
        if let frame = facts.sourceFrame(of: finding) ?? facts.focus(of: finding) {
            locations.append(location(of: frame, paths: facts.paths))
        }
        let stacks = facts.stacks(of: finding).map { entry in
            SARIFLog.Stack(
                message: .init(text: "\(entry.role) stack" + (entry.thread.map { " (\(ThreadView($0).text))" } ?? "")),
                frames: entry.stack.frames.map { frame in
                    var location = location(of: frame, paths: facts.paths)
                    location.message = nil  // the logical location already names the function
                    return SARIFLog.StackFrame(location: location, module: frame.module)
                })
        }
        return SARIFLog.Result(
            ruleId: group.kind, ruleIndex: ruleIndex, level: level(group.severity), message: .init(text: message),
            locations: locations, partialFingerprints: [fingerprintKey: group.fingerprint], stacks: stacks,
            baselineState: "new",
            properties: .init(count: group.count, tests: group.tests, labels: group.labels, findingIDs: group.findingIDs))
    }

    /// A frame's location: physical when its file is known, always logical with the function.
    static func location(of frame: FrameView, paths: SourcePaths) -> SARIFLog.Location {
        var physical: SARIFLog.PhysicalLocation?
        if let file = frame.file {
            let artifact: SARIFLog.ArtifactLocation
            if let relative = paths.relative(file) {
                artifact = .init(uri: SourcePaths.encode(relative), uriBaseId: "SRCROOT")
            } else {
                artifact = .init(uri: "file://" + SourcePaths.encode(file), uriBaseId: nil)
            }
            var region: SARIFLog.Region?
            if let line = frame.line, line > 0 {
                region = SARIFLog.Region(startLine: line, startColumn: frame.column.flatMap { $0 > 0 ? $0 : nil })
            }
            physical = .init(artifactLocation: artifact, region: region)
        }
        return SARIFLog.Location(
            physicalLocation: physical,
            logicalLocations: [SARIFLog.LogicalLocation(fullyQualifiedName: frame.name, kind: "function")],
            message: .init(text: frame.name))
    }
}
