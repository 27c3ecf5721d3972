import Foundation
import ReactiveDiagnosticsReport

/// Writes the gate's new findings as a SARIF 2.1.0 log: one rule per finding kind (the rule id
/// is the kind, so it is stable) with its summary and help from the ``FindingCatalog``; one
/// result per new fingerprint with `partialFingerprints["reactiveDiagnostics/v1"]`, its
/// `physicalLocation` at the culprit user frame (a repository-relative `uri` with `uriBaseId`
/// and the line and column; without a line, the binary and the offset in it), the other user
/// frames with a line as `relatedLocations`, and every frame of its stacks as `stacks`. A leak
/// with a retain path carries why it is alive and the fix in its message, its cycle as a
/// `codeFlow`, and sits at the line to change (the closure that closes the cycle), the
/// subscribe site then related. When the executable registered a fixer (`reactive-diag fix`),
/// a result with a mechanical fix carries it as `fixes` (`artifactChanges` with `replacements`).
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
        var kinds = Set(FindingCatalog.kinds.map(\.name))
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
            var locations: [SARIFLog.Location] = []
            if let frame = facts.liveSiteFrame() {
                locations.append(location(of: frame, paths: facts.paths, inBinary: true))
            }
            results.append(
                SARIFLog.Result(
                    ruleId: liveRuleID, ruleIndex: ruleIndex[liveRuleID] ?? 0, level: "error",
                    message: .init(text: facts.liveMessage), locations: locations,
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
        let info = FindingCatalog.info(for: id)
        let summary: String
        let help: SARIFLog.Message
        if id == liveRuleID {
            summary = "More resources were alive at the end of the run than --max-live allows."
            help = .init(
                text: summary
                    + "\nFix: look at the live allocation sites (reactive-diag show) and release what they hold.",
                markdown: summary
                    + "\n\n- **Fix:** look at the live allocation sites (`reactive-diag show`) and release what they hold."
            )
        } else if let info {
            summary = info.summary
            help = .init(text: info.helpText, markdown: info.helpMarkdown)
        } else {
            summary = "A ReactiveDiagnostics finding of kind \(id)."
            help = .init(text: summary + " (a kind an adapter defines; see its documentation)")
        }
        let severity = info?.defaultSeverity ?? observed ?? .error
        let isLifetime = id == liveRuleID || info?.isLifetime == true
        let tags = ["reactive-diagnostics", isLifetime ? "lifetime" : "correctness"]
        return SARIFLog.Rule(
            id: id, name: id.prefix(1).uppercased() + id.dropFirst(), shortDescription: .init(text: summary),
            fullDescription: .init(text: info?.description ?? summary), help: help,
            helpUri: info.map { "\(informationURI)/blob/main/\($0.documentationPath)" },
            defaultConfiguration: .init(level: level(severity)), properties: .init(tags: tags))
    }

    private static func result(for group: FindingGroup, ruleIndex: Int, facts: inout GateFacts) -> SARIFLog.Result {
        let finding = group.representative
        var message = finding.message
        if group.count > 1 || !group.tests.isEmpty {
            message +=
                " (×\(group.count)" + (group.tests.isEmpty ? "" : " in " + Formatting.list(group.tests, limit: 5)) + ")"
        }
        let explanation = GateExplanation(finding)
        if let explanation {
            message += "\n" + explanation.lines().joined(separator: "\n")
        }
        let place = facts.place(of: finding)
        var locations = place.map { [location(of: $0.frame, paths: facts.paths, inBinary: true)] } ?? []
        var related: [SARIFLog.Location] = []
        var seen: Set<String> = place.flatMap { $0.frame.sourceLocation }.map { [$0] } ?? []
        if let change = explanation?.change, let closureLocation = location(of: change, paths: facts.paths) {
            // The result sits at the line to change; where it was subscribed is related.
            if var subscribed = locations.first {
                subscribed.id = related.count
                subscribed.message = .init(text: "subscribed here")
                related.append(subscribed)
            }
            locations = [closureLocation]
            if let file = change.file, let line = change.line { seen.insert("\(file):\(line)") }
        }
        let stacks = facts.stacks(of: finding)
        for entry in stacks {
            for frame in entry.stack.frames where frame.category == FrameCategory.user.rawValue && (frame.line ?? 0) > 0
            {
                guard let source = frame.sourceLocation, seen.insert(source).inserted else { continue }
                var location = location(of: frame, paths: facts.paths)
                location.id = related.count
                location.message = .init(text: "\(entry.heading), #\(frame.index): \(frame.name)")
                related.append(location)
            }
        }
        let sarifStacks = stacks.map { entry in
            SARIFLog.Stack(
                message: .init(text: entry.heading),
                frames: entry.stack.frames.map { frame in
                    var location = location(of: frame, paths: facts.paths)
                    location.message = nil  // the logical location already names the function
                    return SARIFLog.StackFrame(location: location, module: frame.module)
                })
        }
        return SARIFLog.Result(
            ruleId: group.kind, ruleIndex: ruleIndex, level: level(group.severity), message: .init(text: message),
            locations: locations, relatedLocations: related.isEmpty ? nil : related,
            partialFingerprints: [fingerprintKey: group.fingerprint], stacks: sarifStacks,
            codeFlows: finding.retainPath.flatMap { codeFlow(of: $0, paths: facts.paths) }.map { [$0] },
            fixes: facts.fixes[group.fingerprint].flatMap { fix(of: $0, paths: facts.paths) }.map { [$0] },
            baselineState: "new",
            properties: .init(
                count: group.count, tests: group.tests, labels: group.labels, findingIDs: group.findingIDs))
    }

    /// A mechanical fix (`reactive-diag fix`) as SARIF: its sentence and its replacements.
    static func fix(of outcome: FindingFixOutcome, paths: SourcePaths) -> SARIFLog.Fix? {
        guard case .fix(let description, let files) = outcome, !files.isEmpty else { return nil }
        return SARIFLog.Fix(
            description: .init(text: description),
            artifactChanges: files.map { file in
                SARIFLog.ArtifactChange(
                    artifactLocation: artifact(file.file, paths: paths),
                    replacements: file.replacements.map { replacement in
                        SARIFLog.Replacement(
                            deletedRegion: .init(
                                startLine: replacement.startLine, startColumn: replacement.startColumn,
                                endLine: replacement.endLine, endColumn: replacement.endColumn),
                            insertedContent: replacement.insertedText.isEmpty
                                ? nil : .init(text: replacement.insertedText)
                        )
                    })
            })
    }

    /// A closure's location in its source file, when it has a line.
    private static func location(of closure: ReportClosure, paths: SourcePaths) -> SARIFLog.Location? {
        guard let file = closure.file, let line = closure.line, line > 0 else { return nil }
        let region = SARIFLog.Region(startLine: line, startColumn: closure.column.flatMap { $0 > 0 ? $0 : nil })
        return SARIFLog.Location(
            physicalLocation: .init(artifactLocation: artifact(file, paths: paths), region: region),
            logicalLocations: [SARIFLog.LogicalLocation(fullyQualifiedName: closure.function, kind: "function")],
            message: .init(text: closure.function))
    }

    /// A retain cycle as a code flow: one location per object on it, in order, each saying how it
    /// holds the next; the user's closures at their lines. `nil` for a path that is no cycle.
    private static func codeFlow(of path: ReportRetainPath, paths: SourcePaths) -> SARIFLog.CodeFlow? {
        guard path.verdict == .cycle, !path.cycle.isEmpty else { return nil }
        var steps: [SARIFLog.ThreadFlowLocation] = []
        for (index, step) in path.cycle.enumerated() {
            let next = path.cycle[(index + 1) % path.cycle.count]
            let holds = step.links.map { link -> String in
                let name = link.name.map { ".\($0)" } ?? (link.closure.map { " closure \($0.function)" } ?? "")
                return name + (link.strength == .weak ? " (weak)" : "")
            }.joined()
            let text = "\(step.type)\(step.isSubscription ? " (this subscription)" : "")\(holds) → \(next.type)"
            let closure = step.links.lazy.compactMap(\.closure).first { $0.category == .user && $0.line != nil }
            var place =
                closure.flatMap { Self.location(of: $0, paths: paths) }
                ?? SARIFLog.Location(physicalLocation: nil, logicalLocations: nil, message: nil)
            place.message = .init(text: text)
            steps.append(SARIFLog.ThreadFlowLocation(location: place))
        }
        return SARIFLog.CodeFlow(
            message: .init(text: path.summary), threadFlows: [SARIFLog.ThreadFlow(locations: steps)])
    }

    /// A frame's location: in its source file when the file is known, else (for a result's own
    /// location, `inBinary`) in its binary, the offset as a relative address; always the function
    /// as a logical location.
    static func location(of frame: FrameView, paths: SourcePaths, inBinary: Bool = false) -> SARIFLog.Location {
        var physical: SARIFLog.PhysicalLocation?
        if let file = frame.file {
            var region: SARIFLog.Region?
            if let line = frame.line, line > 0 {
                region = SARIFLog.Region(startLine: line, startColumn: frame.column.flatMap { $0 > 0 ? $0 : nil })
            }
            physical = .init(artifactLocation: artifact(file, paths: paths), region: region)
        } else if inBinary, let image = frame.image, let offset = frame.offset.flatMap(Self.parseHex) {
            physical = .init(
                artifactLocation: artifact(image, paths: paths), region: nil,
                address: .init(relativeAddress: offset, fullyQualifiedName: frame.function ?? frame.symbol))
        }
        return SARIFLog.Location(
            physicalLocation: physical,
            logicalLocations: [SARIFLog.LogicalLocation(fullyQualifiedName: frame.name, kind: "function")],
            message: .init(text: frame.name))
    }

    /// A repository-relative `uri` with `uriBaseId` under the source root, else a `file://` URI.
    private static func artifact(_ path: String, paths: SourcePaths) -> SARIFLog.ArtifactLocation {
        if let relative = paths.relative(path) {
            return .init(uri: SourcePaths.encode(relative), uriBaseId: "SRCROOT")
        }
        return .init(uri: "file://" + SourcePaths.encode(path), uriBaseId: nil)
    }

    private static func parseHex(_ text: String) -> Int? {
        let digits = text.hasPrefix("0x") ? text.dropFirst(2) : Substring(text)
        return Int(digits, radix: 16)
    }
}
