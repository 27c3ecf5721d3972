import ReactiveDiagnosticsReport

/// Constant-time lookups into a report: stacks and images by id.
///
/// ```swift
/// let index = ReportIndex(report)
/// let frames = finding.allocationStack.flatMap(index.stack)?.frames ?? []
/// ```
struct ReportIndex {
    /// The report indexed.
    let report: DiagnosticsReport
    private let stacks: [Int: ReportStack]
    private let images: [Int: ReportImage]

    /// Indexes `report`. O(stacks + images).
    init(_ report: DiagnosticsReport) {
        self.report = report
        var stacks: [Int: ReportStack] = [:]
        stacks.reserveCapacity(report.stacks.count)
        for stack in report.stacks {
            stacks[stack.id] = stack
        }
        var images: [Int: ReportImage] = [:]
        for image in report.images {
            images[image.id] = image
        }
        self.stacks = stacks
        self.images = images
    }

    /// The stack with `id`.
    func stack(_ id: Int) -> ReportStack? {
        stacks[id]
    }

    /// The image with `id`.
    func image(_ id: Int) -> ReportImage? {
        images[id]
    }

    /// The image a frame belongs to.
    func image(of frame: ReportFrame) -> ReportImage? {
        frame.image.flatMap { images[$0] }
    }
}

extension ReportFinding {
    /// Whether the finding counts: suppressed findings never do.
    var isActive: Bool {
        suppressedBy == nil
    }

    /// The stack that identifies where the problem is: the allocation stack, else the event stack.
    var primaryStack: Int? {
        allocationStack ?? eventStack ?? relatedStack
    }

    /// The deterministic order: severity (errors first), kind, fingerprint, then id.
    static func precedes(_ lhs: ReportFinding, _ rhs: ReportFinding) -> Bool {
        if lhs.severity != rhs.severity { return lhs.severity > rhs.severity }
        if lhs.kind != rhs.kind { return lhs.kind < rhs.kind }
        if lhs.fingerprint != rhs.fingerprint { return lhs.fingerprint < rhs.fingerprint }
        return lhs.id < rhs.id
    }
}
