package import ArgumentParser
import Foundation
package import ReactiveDiagTool
import ReactiveDiagnosticsReport
import SwiftSyntax
import _ReactiveDiagnosticsProcess

/// `reactive-diag fix REPORT… [--apply] [--force]`: the mechanical fixes of a report's
/// findings as a unified diff, or applied to the sources.
///
/// ```
/// $ reactive-diag fix .build/reactive-diagnostics > fixes.diff
/// $ reactive-diag fix .build/reactive-diagnostics --apply
/// ```
package struct FixCommand: ParsableCommand, ToolCommand {
    package static let configuration = CommandConfiguration(
        commandName: "fix",
        abstract: "Print (or apply) the mechanical fixes of a report's findings as a unified diff.",
        discussion: """
            Fixes: a weak capture in the closure that closes a retain cycle (with `name?.` or \
            `guard let name else { return }`), assign(to:on:) rewritten (assign(to: &$p) for an @Published \
            property, else sink with [weak self]), a discarded AnyCancellable stored in its type's one \
            Set<AnyCancellable>. Every other finding gets a "no mechanical fix: <reason>" line in the header. \
            A fix is refused when the line no longer matches the report or the edited file would not parse. \
            --apply refuses files with uncommitted git changes unless --force. Exit codes: 0 done, 1 some fix \
            was refused, 2 unusable input.
            """)

    @OptionGroup package var input: InputOptions

    @Flag(help: "Write the fixes to the source files instead of printing the diff only.")
    package var apply = false

    @Flag(help: "With --apply: also edit files that have uncommitted changes in git.")
    package var force = false

    @Option(
        name: .customLong("map-prefix"),
        help: ArgumentHelp(
            "Read the report's source paths starting with OLD under NEW instead (repeatable).", valueName: "OLD=NEW"))
    package var mapPrefix: [String] = []

    @Option(
        name: .customLong("source-root"),
        help: ArgumentHelp(
            "Paths in the diff are relative to this directory (default: the working directory).", valueName: "dir"))
    package var sourceRoot: String?

    package init() {}

    package func validate() throws {
        for entry in mapPrefix where !entry.contains("=") {
            throw ValidationError("--map-prefix takes OLD=NEW, not \(entry).")
        }
    }

    package func execute(in context: ToolContext) throws -> Int32 {
        let (report, _) = try input.load(in: context)
        let root = sourceRoot.map { context.url(for: $0).path } ?? context.currentDirectory
        let map = mapPrefix.map { entry -> (from: String, to: String) in
            let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
            let new = parts.count > 1 ? parts[1] : ""
            return (parts[0], context.url(for: new).path + (new.hasSuffix("/") && new != "/" ? "/" : ""))
        }
        let fixer = FindingFixer(pathMap: map, displayRoot: root)
        var run = FixRun(fixer: fixer, report: report)
        run.plan()
        if apply {
            run.refuseDirtyFiles(force: force, context: context)
        }
        run.combine()
        context.stdout.write(run.header().map { "# " + $0 + "\n" }.joined())
        for file in run.files where !file.diff.isEmpty {
            context.stdout.write(file.diff)
        }
        if apply {
            for file in run.files where file.edited != file.source.text {
                do {
                    try Data(file.edited.utf8).write(to: URL(fileURLWithPath: file.source.path), options: .atomic)
                } catch {
                    throw ToolError("\(file.source.path): cannot write the file: \(error.localizedDescription)")
                }
                context.note(
                    "fixed \(fixer.display(file.source.path)) (\(file.findings) \(file.findings == 1 ? "fix" : "fixes"))"
                )
            }
        }
        return run.hasRefusals ? ExitStatus.newFindings : ExitStatus.success
    }
}

/// One run of `fix`: a plan per bug (findings sharing a fingerprint are one), then the edits
/// of every file combined.
struct FixRun {
    struct Entry {
        var finding: ReportFinding
        var count: Int
        var plan: FindingFixer.Plan
        var outcome: FindingFixOutcome?
    }

    struct FileResult {
        var source: SourceText
        var edited: String
        var diff: String
        var findings: Int
    }

    let fixer: FindingFixer
    let report: DiagnosticsReport
    var entries: [Entry] = []
    var files: [FileResult] = []
    var cache = FindingFixer.SourceCache()

    init(fixer: FindingFixer, report: DiagnosticsReport) {
        self.fixer = fixer
        self.report = report
    }

    var hasRefusals: Bool {
        entries.contains { if case .refused = $0.outcome { return true } else { return false } }
    }

    mutating func plan() {
        var index: [String: Int] = [:]
        for finding in report.findings where finding.suppressedBy == nil {
            if let existing = index[finding.fingerprint] {
                entries[existing].count += 1
                continue
            }
            index[finding.fingerprint] = entries.count
            let plan = fixer.plan(finding, in: report, cache: &cache)
            var entry = Entry(finding: finding, count: 1, plan: plan)
            if case .outcome(let outcome) = plan { entry.outcome = outcome }
            entries.append(entry)
        }
    }

    /// `--apply` without `--force`: a file with uncommitted changes is not touched.
    mutating func refuseDirtyFiles(force: Bool, context: ToolContext) {
        guard !force else { return }
        var dirty: [String: Bool] = [:]
        for (position, entry) in entries.enumerated() {
            guard case .edits(let file, _, _) = entry.plan, entry.outcome == nil else { continue }
            let isDirty = dirty[file.local] ?? Self.hasUncommittedChanges(file.local)
            dirty[file.local] = isDirty
            if isDirty {
                entries[position].outcome = .refused(
                    "\(fixer.display(file.local)) has uncommitted changes (git): commit or stash them, or pass --force")
            }
        }
    }

    /// Whether git says `path` differs from what is committed (untracked counts); `false`
    /// outside a repository or without git.
    static func hasUncommittedChanges(_ path: String) -> Bool {
        let directory = (path as NSString).deletingLastPathComponent
        guard
            let result = try? Subprocess.run(
                "/usr/bin/env", arguments: ["git", "-C", directory, "status", "--porcelain", "--", path], timeout: 30),
            result.status == 0
        else { return false }
        return !result.standardOutput.isEmpty
    }

    /// Combines the fixes of each file: identical edits once, an overlapping fix refused,
    /// the combined file parsed (refused as a whole when it would not parse).
    mutating func combine() {
        var order: [String] = []
        var perFile: [String: [(entry: Int, edits: [TextEdit])]] = [:]
        var refs: [String: FindingFixer.FileRef] = [:]
        for (position, entry) in entries.enumerated() {
            guard case .edits(let file, let edits, _) = entry.plan, entry.outcome == nil else { continue }
            if perFile[file.local] == nil { order.append(file.local) }
            refs[file.local] = file
            perFile[file.local, default: []].append((position, edits))
        }
        for path in order {
            guard let ref = refs[path], let source = cache.source(ref) else { continue }
            var accepted: [TextEdit] = []
            var acceptedEntries: [Int] = []
            for (position, edits) in perFile[path] ?? [] {
                let new = edits.filter { !accepted.contains($0) }
                if new.contains(where: { edit in accepted.contains { $0.overlaps(edit) } }) {
                    entries[position].outcome = .refused("its edit overlaps another fix's in \(fixer.display(path))")
                    continue
                }
                accepted += new
                acceptedEntries.append(position)
            }
            let edited = source.applying(accepted)
            let problem =
                source.tree.hasError
                ? "\(fixer.display(path)) does not parse as it is (swift-syntax): nothing is changed"
                : SourceText(path: path, text: edited).tree.hasError
                    ? "the edited \(fixer.display(path)) would not parse; nothing is changed" : nil
            if let problem {
                for position in acceptedEntries {
                    entries[position].outcome = .refused(problem)
                }
                continue
            }
            for position in acceptedEntries {
                guard case .edits(_, let edits, let description) = entries[position].plan else { continue }
                entries[position].outcome = fixer.finish(
                    source: source, reportFile: ref.report, edits: edits, description: description)
            }
            let diff = UnifiedDiff.make(path: fixer.display(path), old: source.text, new: edited)
            files.append(FileResult(source: source, edited: edited, diff: diff, findings: acceptedEntries.count))
        }
    }

    /// The diff's header: a line per bug with its outcome, and the counts.
    func header() -> [String] {
        var counts = [0, 0, 0, 0]
        var lines: [String] = []
        for entry in entries {
            guard let outcome = entry.outcome else { continue }
            switch outcome {
            case .fix: counts[0] += 1
            case .alreadyFixed: counts[1] += 1
            case .noFix: counts[2] += 1
            case .refused: counts[3] += 1
            }
            let finding = entry.finding
            let subject =
                finding.kind + (finding.label.map { " \"\($0)\"" } ?? "") + (finding.test.map { " @ \($0)" } ?? "")
                + (entry.count > 1 ? " (×\(entry.count))" : "")
            lines.append(subject + ": " + outcome.sentence)
        }
        let total = report.findings.filter { $0.suppressedBy == nil }.count
        let summary =
            "reactive-diag fix: \(total) \(total == 1 ? "finding" : "findings") (\(entries.count) distinct):"
            + " \(counts[0]) with a mechanical fix, \(counts[1]) already fixed, \(counts[2]) without a mechanical fix,"
            + " \(counts[3]) refused"
        return [summary] + lines
    }
}

extension ToolExtensions {
    /// The `fix` command, and the fixer for the outputs that show fixes (SARIF, HTML), with
    /// diffs relative to `currentDirectory`.
    ///
    /// ```swift
    /// ReactiveDiag.run(arguments: ["fix", "report.json"], extensions: .withFixes())
    /// ```
    package static func withFixes(
        currentDirectory: String = FileManager.default.currentDirectoryPath
    ) -> ToolExtensions {
        ToolExtensions(subcommands: [FixCommand.self], fixer: FindingFixer(displayRoot: currentDirectory))
    }
}
