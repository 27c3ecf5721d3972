import Foundation
package import ReactiveDiagTool
package import ReactiveDiagnosticsReport
import SwiftSyntax

/// Finds, for each finding of a report, the mechanical fix in its source: a weak capture in
/// the closure that closes a retain cycle, `assign(to:on:)` rewritten, a discarded
/// `AnyCancellable` stored; or says why there is none. Reads the files the report names
/// (through `pathMap`), never writes them (``FixCommand`` does, with `--apply`).
///
/// ```swift
/// let fixer = FindingFixer(displayRoot: "/src/app")
/// for outcome in fixer.outcomes(for: report.findings, in: report) { print(outcome.sentence) }
/// ```
package struct FindingFixer: FindingFixing {
    /// Path prefixes to rewrite before reading a file: the report's paths → where the sources are now.
    package var pathMap: [(from: String, to: String)]
    /// Diffs name files relative to this directory when they are under it.
    package var displayRoot: String

    package init(pathMap: [(from: String, to: String)] = [], displayRoot: String) {
        self.pathMap = pathMap
        self.displayRoot = displayRoot
    }

    package func outcomes(for findings: [ReportFinding], in report: DiagnosticsReport) -> [FindingFixOutcome] {
        var cache = SourceCache()
        return findings.map { finding in
            let plan = plan(finding, in: report, cache: &cache)
            switch plan {
            case .outcome(let outcome):
                return outcome
            case .edits(let file, let edits, let description):
                guard let source = cache.source(file) else { return .refused("cannot read \(file)") }
                return finish(source: source, reportFile: file.report, edits: edits, description: description)
            }
        }
    }

    /// The outcome of `edits` on one file: refused when the edited file does not parse.
    func finish(source: SourceText, reportFile: String, edits: [TextEdit], description: String) -> FindingFixOutcome {
        if source.tree.hasError {
            return .refused("\(display(source.path)) does not parse as it is (swift-syntax): nothing is changed")
        }
        let edited = source.applying(edits)
        let parsed = SourceText(path: source.path, text: edited)
        if parsed.tree.hasError {
            return .refused("the edited \(display(source.path)) would not parse; nothing is changed")
        }
        let diff = UnifiedDiff.make(path: display(source.path), old: source.text, new: edited)
        return .fix(
            description: description,
            files: [SourceFileFix(file: reportFile, replacements: source.replacements(edits), diff: diff)])
    }

    /// `path` relative to ``displayRoot`` when under it.
    func display(_ path: String) -> String {
        let root = displayRoot.hasSuffix("/") ? displayRoot : displayRoot + "/"
        return path.hasPrefix(root) ? String(path.dropFirst(root.count)) : path
    }

    /// A report's path where the file is now.
    func mapped(_ path: String) -> String {
        for (from, to) in pathMap where path.hasPrefix(from) {
            return to + path.dropFirst(from.count)
        }
        return path
    }

    // MARK: Planning

    struct FileRef: Hashable {
        /// As the report names it.
        var report: String
        /// Where it is read.
        var local: String
    }

    enum Plan {
        case edits(FileRef, [TextEdit], String)
        case outcome(FindingFixOutcome)
    }

    /// Reads each file once.
    struct SourceCache {
        private var sources: [String: SourceText?] = [:]

        mutating func source(_ file: FileRef) -> SourceText? {
            if let cached = sources[file.local] { return cached }
            // A regular file of at most 8 MiB, as the HTML page's excerpts: a hostile report's
            // path to a device or a huge file is not read.
            let attributes = try? FileManager.default.attributesOfItem(atPath: file.local)
            let regular = (attributes?[.type] as? FileAttributeType) == .typeRegular
            let size = (attributes?[.size] as? NSNumber)?.intValue ?? Int.max
            let text = regular && size <= 8 << 20 ? try? String(contentsOfFile: file.local, encoding: .utf8) : nil
            let source = text.map { SourceText(path: file.local, text: $0) }
            sources[file.local] = source
            return source
        }
    }

    func plan(_ finding: ReportFinding, in report: DiagnosticsReport, cache: inout SourceCache) -> Plan {
        if let path = finding.retainPath, path.verdict == .cycle, !path.cycle.isEmpty {
            if let capture = Self.capturingClosure(path), let file = capture.closure.file,
                let line = capture.closure.line, line > 0
            {
                return closurePlan(capture.closure, name: capture.name, file: file, line: line, cache: &cache)
            }
            if path.cycle.contains(where: { $0.type.hasPrefix("Assign<") }) {
                return callPlan(finding, in: report, cache: &cache, what: "assign(to:on:)") { line, source in
                    CallFixes.assign(at: line, in: source)
                }
            }
            return .outcome(
                .noFix(
                    "the cycle closes through a framework object's property, not a closure of yours: "
                        + (path.fix ?? "hold one reference weakly")))
        }
        switch finding.kind {
        case "prematureCancellation":
            return callPlan(finding, in: report, cache: &cache, what: "the subscription") { line, source in
                CallFixes.store(at: line, in: source)
            }
        case "leakedSubscription":
            if let path = finding.retainPath, path.verdict == .heldOnlyByItself {
                return .outcome(.noFix("held only by itself, never cancelled: " + (path.fix ?? "end it")))
            }
            if let path = finding.retainPath, path.verdict == .notACycle {
                return .outcome(
                    .noFix(
                        "not a retain cycle: something outside holds it; "
                            + (path.fix ?? "end the subscription when its work is done")))
            }
            return .outcome(.noFix("no retain cycle was found (the retain path could not tell why it is alive)"))
        default:
            return .outcome(
                .noFix(Self.reasons[finding.kind] ?? "nothing mechanical changes a \(finding.kind) finding"))
        }
    }

    static let reasons: [String: String] = [
        "wrongThread":
            "which thread the work belongs on is a design decision (receive(on:) before the sink, or @MainActor)",
        "uncancelledTimer": "when the timer should stop (cancel it, or end it with its owner) is the app's decision",
        "valueAfterTermination": "the publisher breaks the stream grammar: its own code must change, not a capture",
        "doubleTermination": "the publisher breaks the stream grammar: its own code must change, not a capture",
        "concurrentDelivery": "the publisher delivers from two threads at once: its own code must serialize",
        "leakedResource":
            "a task or resource nobody keeps: whether to keep and cancel it, or end its work, is the author's choice",
        "leakedTask":
            "a task nobody keeps: whether to keep and cancel it, or end its work, is the author's choice",
    ]

    /// The user's closure that captures the next object on the cycle, and the name it captures.
    static func capturingClosure(_ path: ReportRetainPath) -> (closure: ReportClosure, name: String?)? {
        for step in path.cycle {
            var last: (ReportClosure, String?)?
            for (index, link) in step.links.enumerated() {
                guard let closure = link.closure, closure.category == .user else { continue }
                let capture = step.links[(index + 1)...].first { $0.kind == .capture || $0.kind == .closure }
                last = (closure, capture?.kind == .capture ? capture?.name : link.name)
            }
            if let last { return last }
        }
        return nil
    }

    private func fileRef(_ file: String) -> FileRef {
        FileRef(report: file, local: mapped(file))
    }

    private func closurePlan(
        _ closure: ReportClosure, name captured: String?, file: String, line: Int, cache: inout SourceCache
    ) -> Plan {
        let ref = fileRef(file)
        let where_ = "\(display(ref.local)):\(line)"
        guard let source = cache.source(ref) else {
            return .outcome(.refused("cannot read \(ref.local) (the closure at line \(line))"))
        }
        var candidates = closures(onLine: line, in: source)
        if let column = closure.column, column > 0 {
            let atColumn = candidates.filter {
                let offset = $0.leftBrace.positionAfterSkippingLeadingTrivia.utf8Offset
                return offset - source.lineStarts[line - 1] + 1 == column
            }
            if !atColumn.isEmpty { candidates = atColumn }
        }
        let name: String
        if let captured {
            name = captured
        } else if candidates.contains(where: { !CaptureFix.references(to: "self", in: Syntax($0.statements)).isEmpty })
        {
            name = "self"
        } else {
            return .outcome(.noFix("the report does not name what the closure at \(where_) captures"))
        }
        if candidates.count > 1 {
            let naming = candidates.filter {
                !CaptureFix.references(to: name, in: Syntax($0.statements)).isEmpty
                    || CaptureFix.capturesWeakly($0, name)
            }
            if naming.count == 1 { candidates = naming }
        }
        guard candidates.count == 1, let target = candidates.first else {
            if candidates.isEmpty {
                return .outcome(
                    .refused(
                        "no closure opens at \(where_): the line changed since the report"
                            + " (it reads `\(source.trimmedLine(line) ?? "")`)"))
            }
            return .outcome(.refused("\(candidates.count) closures open at \(where_): which one is ambiguous"))
        }
        let family = CaptureFix.siblings(of: target).filter {
            $0.id == target.id || !CaptureFix.references(to: name, in: Syntax($0.statements)).isEmpty
        }
        if family.allSatisfy({ CaptureFix.capturesWeakly($0, name) }) {
            return .outcome(.alreadyFixed("the closure at \(where_) captures `\(name)` weakly"))
        }
        var checked = ""
        if let expected = closure.sourceText {
            let actual = source.trimmedLine(line) ?? ""
            if actual != expected {
                return .outcome(
                    .refused(
                        "\(where_) no longer matches the report: the report saw `\(expected)`, the file has `\(actual)`"
                    ))
            }
        } else {
            checked =
                " (the report keeps no text of this line, written before it did: whether the line changed could not be"
                + " checked; the closure found there has the expected shape)"
        }
        var edits: [TextEdit] = []
        var others: [Int] = []
        for member in family where !CaptureFix.capturesWeakly(member, name) {
            let memberLine = source.line(of: member.leftBrace.positionAfterSkippingLeadingTrivia.utf8Offset)
            switch CaptureFix.edits(for: member, capturing: name) {
            case .success(let memberEdits):
                edits += memberEdits
                if member.id != target.id { others.append(memberLine) }
            case .failure(.alreadyWeak):
                continue
            case .failure(.noFix(let reason)):
                let which = member.id == target.id ? "" : " (line \(memberLine), passed to the same call)"
                return .outcome(.noFix(reason + which))
            }
        }
        var description = "capture [weak \(name)] in the closure at \(where_)"
        if !others.isEmpty {
            description +=
                " and in the \(others.count == 1 ? "closure" : "closures") at line"
                + " \(others.map(String.init).joined(separator: ", ")) passed to the same call (held by the same subscriber)"
        }
        return .edits(ref, edits, description + checked)
    }

    private func closures(onLine line: Int, in source: SourceText) -> [ClosureExprSyntax] {
        final class Finder: SyntaxVisitor {
            let line: Int
            let source: SourceText
            var found: [ClosureExprSyntax] = []
            init(_ line: Int, _ source: SourceText) {
                self.line = line
                self.source = source
                super.init(viewMode: .sourceAccurate)
            }
            override func visit(_ node: ClosureExprSyntax) -> SyntaxVisitorContinueKind {
                if source.line(of: node.leftBrace.positionAfterSkippingLeadingTrivia.utf8Offset) == line {
                    found.append(node)
                }
                return .visitChildren
            }
        }
        let finder = Finder(line, source)
        finder.walk(source.tree)
        return finder.found
    }

    private func callPlan(
        _ finding: ReportFinding, in report: DiagnosticsReport, cache: inout SourceCache, what: String,
        fix: (Int, SourceText) -> CallFixes.Outcome
    ) -> Plan {
        let stacks = Dictionary(report.stacks.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        guard let place = FindingPlacement.culprit(of: finding, stacks: { stacks[$0] }),
            let file = place.frame.file, let line = place.frame.line, line > 0
        else {
            return .outcome(.noFix("the report does not say on which line \(what) is made"))
        }
        let ref = fileRef(file)
        guard let source = cache.source(ref) else {
            return .outcome(.refused("cannot read \(ref.local) (line \(line))"))
        }
        switch fix(line, source) {
        case .edits(let edits, let description):
            return .edits(
                ref, edits,
                description.replacingOccurrences(of: "(line \(line))", with: "at \(display(ref.local)):\(line)"))
        case .alreadyFixed(let reason):
            return .outcome(.alreadyFixed("\(display(ref.local)): " + reason))
        case .noFix(let reason):
            return .outcome(.noFix(reason + " (\(display(ref.local)):\(line))"))
        case .refused(let reason):
            return .outcome(.refused("\(display(ref.local)): " + reason))
        }
    }
}
