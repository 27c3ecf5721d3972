import ReactiveDiagnosticsReport

/// Symbolizes each stack once and numbers the images its frames belong to, for reports and
/// crash journals.
struct StackTable {
    let engine: DiagnosticsEngine
    private(set) var stacks: [ReportStack] = []
    private(set) var images: [ReportImage] = []
    private var stackIDs: [StackID: Int] = [:]
    private var imageIDs: [String: Int] = [:]

    init(engine: DiagnosticsEngine) {
        self.engine = engine
    }

    /// The report id of a stack, symbolizing and adding it (and its images) on first use.
    mutating func reference(_ stack: StackID) -> Int? {
        guard stack.isCaptured else { return nil }
        if let id = stackIDs[stack] {
            return id
        }
        let symbolized = engine.symbolize(stack)
        let id = Int(stack.rawValue)
        var frames: [ReportFrame] = []
        frames.reserveCapacity(symbolized.frames.count)
        for frame in symbolized.frames {
            frames.append(
                ReportFrame(
                    address: Self.hex(frame.address),
                    image: frame.imagePath.map { image(path: $0, buildID: frame.imageBuildID) },
                    offset: frame.imageOffset.map(Self.hex), symbol: frame.symbol, function: frame.function,
                    module: frame.module, category: frame.category))
        }
        stacks.append(ReportStack(id: id, frames: frames, droppedFrames: symbolized.droppedFrames))
        stackIDs[stack] = id
        return id
    }

    private mutating func image(path: String, buildID: String?) -> Int {
        if let id = imageIDs[path] {
            return id
        }
        let id = images.count
        images.append(ReportImage(id: id, path: path, buildID: buildID))
        imageIDs[path] = id
        return id
    }

    static func hex(_ value: UInt) -> String {
        "0x" + String(value, radix: 16)
    }
}

/// Turns engine findings into report findings, caching name look-ups (each takes a lock).
struct FindingConverter {
    let engine: DiagnosticsEngine
    private var testNames: [TestIdentity: String?] = [:]
    private var kindNames: [ResourceKind: String] = [:]

    init(engine: DiagnosticsEngine) {
        self.engine = engine
    }

    mutating func convert(_ finding: Finding, stacks: inout StackTable) -> ReportFinding {
        ReportFinding(
            id: finding.id, kind: finding.kind.rawValue, severity: finding.severity, message: finding.message,
            label: finding.label, resourceKind: finding.resourceKind.map { name(of: $0) }, test: name(of: finding.test),
            fingerprint: engine.fingerprint(of: finding), policy: finding.policy.rawValue,
            suppressedBy: finding.suppressedBy, allocationStack: stacks.reference(finding.allocationStack),
            eventStack: stacks.reference(finding.eventStack), relatedStack: stacks.reference(finding.relatedStack),
            thread: finding.thread.map(Self.thread), otherThread: finding.otherThread.map(Self.thread),
            time: (finding.time * 1000).rounded() / 1000, details: finding.details, retainPath: finding.retainPath)
    }

    mutating func name(of test: TestIdentity) -> String? {
        if let cached = testNames[test] {
            return cached
        }
        let name = test.name
        testNames[test] = name
        return name
    }

    mutating func name(of kind: ResourceKind) -> String {
        if let cached = kindNames[kind] {
            return cached
        }
        let name = kind.name
        kindNames[kind] = name
        return name
    }

    static func thread(_ info: ThreadInfo) -> ReportThread {
        ReportThread(id: info.id, name: info.name, queue: info.queue, isMainQueue: info.isMainQueue)
    }
}
