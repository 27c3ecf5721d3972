public import Foundation

/// One line of a crash journal: the append-only record a test process keeps next to its
/// report, so that what it found survives a crash (`fatalError`, a trap, `SIGKILL`).
///
/// A journal is JSON Lines: each line an object with one member named for the entry's kind,
/// for example `{"finding":{…}}`. Stacks and images are written before the first finding that
/// refers to them. ``DiagnosticsReport/rebuild(fromJournal:source:)`` turns a journal back into
/// a (partial) report; `reactive-diag` does that when the final report is missing.
///
/// ```swift
/// let data = try Data(contentsOf: URL(fileURLWithPath: "report-xctest-42.journal.jsonl"))
/// let report = try DiagnosticsReport.rebuild(fromJournal: data, source: "report-xctest-42.journal.jsonl")
/// assert(report.run.completeness == .partial)
/// ```
public enum JournalEntry: Sendable, Equatable {
    /// The header: where and when the process ran.
    case run(RunInfo)
    /// A binary image frames refer to.
    case image(ReportImage)
    /// A stack findings refer to. The thread that made a finding writes its stacks *raw*
    /// (addresses, images and offsets; no names) so that it is not held up; the same stack id
    /// is written again, symbolized, once a background queue has named it. A reader keeps the
    /// last entry of each id.
    case stack(ReportStack)
    /// A finding.
    case finding(ReportFinding)
    /// Facts added to a finding after it was recorded (the other thread of a concurrent delivery,
    /// the fingerprint once its stacks were symbolized).
    case update(FindingUpdate)
    /// A test that finished.
    case test(TestRecord)

    /// The entry as one line of JSON, newline included.
    public func jsonLine() -> Data {
        var writer = JSONWriter(capacity: 512)
        writer.beginObject()
        switch self {
        case .run(let run):
            writer.key("run")
            run.write(to: &writer)
        case .image(let image):
            writer.key("image")
            image.write(to: &writer)
        case .stack(let stack):
            writer.key("stack")
            stack.write(to: &writer)
        case .finding(let finding):
            writer.key("finding")
            finding.write(to: &writer)
        case .update(let update):
            writer.key("update")
            update.write(to: &writer)
        case .test(let test):
            writer.key("test")
            test.write(to: &writer)
        }
        writer.endObject()
        var bytes = writer.bytes
        bytes.append(0x0A)
        return Data(bytes)
    }
}

/// Facts added to a finding after it was recorded.
///
/// ```swift
/// // A journal line saying finding 7 has a second stack now (stack 12).
/// let line = JournalEntry.update(FindingUpdate(id: 7, relatedStack: 12)).jsonLine()
/// ```
public struct FindingUpdate: Sendable, Equatable {
    /// The finding's id.
    public var id: Int
    /// The stack of the other delivery.
    public var relatedStack: Int?
    /// The other thread.
    public var otherThread: ReportThread?
    /// The finding's fingerprint, once its stacks were symbolized (a journal's finding entry is
    /// written before, with an empty fingerprint).
    public var fingerprint: String?

    /// Creates an update.
    public init(id: Int, relatedStack: Int? = nil, otherThread: ReportThread? = nil, fingerprint: String? = nil) {
        self.id = id
        self.relatedStack = relatedStack
        self.otherThread = otherThread
        self.fingerprint = fingerprint
    }
}
