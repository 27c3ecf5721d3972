public import Foundation

extension DiagnosticsReport {
    /// The journal path that belongs to a report path: `report.json` → `report.journal.jsonl`.
    public static func journalPath(forReport path: String) -> String {
        path.hasSuffix(".json") ? String(path.dropLast(5)) + ".journal.jsonl" : path + ".journal.jsonl"
    }

    /// Rebuilds a partial report from a crash journal.
    ///
    /// A process that dies mid-write leaves a last line cut short: that line is ignored. The
    /// result has `run.completeness == .partial`, the findings with their stacks, and the
    /// tests that finished; the ledger and scheduler statistics (written only at the end of
    /// a run) are empty.
    ///
    /// A finding the process made just before it died may still have *raw* stacks (frames
    /// with an address, an image and an offset but no name) and an empty fingerprint: the
    /// journal names them off the finding's thread, after the fact. `reactive-diag` names
    /// such frames with llvm-symbolizer when it reads a journal.
    ///
    /// - Throws: ``ReportError`` when the journal is empty, has no header, or a complete
    ///   line is not a journal entry.
    public static func rebuild(fromJournal data: Data, source: String) throws(ReportError) -> DiagnosticsReport {
        let lines = data.split(separator: 0x0A, omittingEmptySubsequences: true)
        guard !lines.isEmpty else { throw ReportError(source: source, reason: .empty) }
        var run: RunInfo?
        var findings: [ReportFinding] = []
        var indexByID: [Int: Int] = [:]
        var stacks: [ReportStack] = []
        var stackIndexByID: [Int: Int] = [:]
        var images: [ReportImage] = []
        var tests: [TestRecord] = []
        let endsWithNewline = data.last == 0x0A
        lines: for (number, line) in lines.enumerated() {
            let parsed: Result<JournalEntry, JSONReadError> = Data(line).withUnsafeBytes { raw in
                var reader = JSONReader(raw.bindMemory(to: UInt8.self), maximumDepth: maximumNesting)
                do throws(JSONReadError) {
                    let entry = try JournalEntry.read(&reader)
                    try reader.expectEnd()
                    return .success(entry)
                } catch {
                    return .failure(error)
                }
            }
            let entry: JournalEntry
            switch parsed {
            case .success(let value):
                entry = value
            case .failure(let error):
                if number == lines.count - 1 && !endsWithNewline {
                    break lines  // cut short by the crash
                }
                throw ReportError(source: source, reason: .invalid("line \(number + 1): \(error.message)"))
            }
            switch entry {
            case .run(let header): run = header
            case .image(let image): images.append(image)
            case .stack(let stack):
                // A stack is written raw when its finding is made, then again once it is named.
                if let index = stackIndexByID[stack.id] {
                    stacks[index] = stack
                } else {
                    stackIndexByID[stack.id] = stacks.count
                    stacks.append(stack)
                }
            case .finding(let finding):
                indexByID[finding.id] = findings.count
                findings.append(finding)
            case .update(let update):
                if let index = indexByID[update.id] {
                    findings[index].relatedStack = update.relatedStack ?? findings[index].relatedStack
                    findings[index].otherThread = update.otherThread ?? findings[index].otherThread
                    findings[index].fingerprint = update.fingerprint ?? findings[index].fingerprint
                }
            case .test(let test): tests.append(test)
            }
        }
        guard var header = run else {
            throw ReportError(source: source, reason: .notAReport("the journal has no run header"))
        }
        header.completeness = .partial
        header.tests = tests
        let lastFinding = findings.map(\.time).max() ?? 0
        header.endTime = ReportDates.normalized(header.startTime.addingTimeInterval(lastFinding))
        var report = DiagnosticsReport(run: header, findings: findings, stacks: stacks, images: images)
        report.sourceLines = SourceLineStatus.measure(
            report, resolver: nil,
            reason: "rebuilt from a crash journal, which records no lines (they are resolved when the final report is "
                + "written); reactive-diag symbolize can add them")
        if let problem = report.validationProblem() {
            throw ReportError(source: source, reason: .invalid(problem))
        }
        return report
    }

    /// Reads a crash journal from disk and rebuilds the partial report.
    public static func loadJournal(from url: URL) throws(ReportError) -> DiagnosticsReport {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ReportError(source: url.path, reason: .unreadable((error as NSError).localizedDescription))
        }
        return try rebuild(fromJournal: data, source: url.path)
    }
}

extension JournalEntry {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> JournalEntry {
        try r.beginObject()
        guard let key = try r.nextKey() else { throw r.shape("is an empty journal entry") }
        r.path.append(key)
        let entry: JournalEntry
        switch key {
        case "run": entry = .run(try RunInfo.read(&r))
        case "image": entry = .image(try ReportImage.read(&r))
        case "stack": entry = .stack(try ReportStack.read(&r))
        case "finding": entry = .finding(try ReportFinding.read(&r))
        case "test": entry = .test(try TestRecord.read(&r))
        case "update": entry = .update(try FindingUpdate.read(&r))
        default:
            throw r.shape("is not a journal entry kind")
        }
        r.path.removeLast()
        guard try r.nextKey() == nil else { throw r.shape("has more than one member") }
        return entry
    }
}
