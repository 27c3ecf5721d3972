import ReactiveDiagnosticsReport
import ReactiveDiagnosticsSymbolication

/// Symbolizes each stack once and numbers the images its frames belong to, for reports and
/// crash journals.
///
/// A crash journal first adds a stack *raw* (``rawReference(_:segments:)``: each frame's image
/// and offset, no names, cheap enough for the thread that made the finding), then again
/// *named* once it was symbolized off that thread (``add(_:for:)``); ``stacks`` then holds
/// both entries, in that order, under one id.
struct StackTable {
    let engine: DiagnosticsEngine
    /// Every stack entry added, in order (a journal's stack can be there raw, then named).
    private(set) var stacks: [ReportStack] = []
    private(set) var images: [ReportImage] = []
    private var stackIDs: [StackID: Int] = [:]
    private var rawStackIDs: Set<StackID> = []
    private var imageIDs: [String: Int] = [:]
    private var imageCategories: [Int: FrameCategory] = [:]

    init(engine: DiagnosticsEngine) {
        self.engine = engine
    }

    /// The report id of a stack, symbolizing and adding it (and its images) on first use.
    mutating func reference(_ stack: StackID) -> Int? {
        guard stack.isCaptured else { return nil }
        if let id = stackIDs[stack] {
            return id
        }
        return add(engine.symbolize(stack), for: stack)
    }

    /// Whether a stack was added named (``reference(_:)`` or ``add(_:for:)``).
    func isNamed(_ stack: StackID) -> Bool {
        stackIDs[stack] != nil
    }

    /// Adds a stack symbolized elsewhere (off the lock that guards this table); returns its id.
    @discardableResult
    mutating func add(_ symbolized: SymbolizedStack, for stack: StackID) -> Int {
        if let id = stackIDs[stack] {
            return id
        }
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

    /// The report id of a stack, adding it raw on first use: every frame with its address,
    /// image and offset, and the category its image alone tells (the library's own frames are
    /// not dropped: that takes names). No symbol is looked up, so the thread that made the
    /// finding is not held up; ``add(_:for:)`` adds the named stack later.
    mutating func rawReference(_ stack: StackID, segments: inout ImageSegments) -> Int? {
        guard stack.isCaptured else { return nil }
        let id = Int(stack.rawValue)
        if stackIDs[stack] != nil || rawStackIDs.contains(stack) {
            return id
        }
        let addresses = engine.stacks.addresses(of: stack)
        var frames: [ReportFrame] = []
        frames.reserveCapacity(addresses.count)
        for address in addresses {
            var frame = ReportFrame(address: Self.hex(address), category: .user)
            if let (found, offset) = segments.image(ofReturnAddress: address) {
                let image = image(path: found.path, buildID: found.buildID)
                frame.image = image
                frame.offset = Self.hex(offset)
                frame.category = category(ofImage: image, path: found.path)
            }
            frames.append(frame)
        }
        stacks.append(ReportStack(id: id, frames: frames, droppedFrames: 0))
        rawStackIDs.insert(stack)
        return id
    }

    private mutating func category(ofImage image: Int, path: String) -> FrameCategory {
        if let known = imageCategories[image] {
            return known
        }
        let category = FrameClassifier.category(ofImage: path) ?? .user
        imageCategories[image] = category
        return category
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
        convert(
            finding, fingerprint: engine.fingerprint(of: finding),
            allocationStack: stacks.reference(finding.allocationStack),
            eventStack: stacks.reference(finding.eventStack),
            relatedStack: stacks.reference(finding.relatedStack),
            chainStacks: finding.chain.map { stacks.reference($0.allocationStack) })
    }

    /// Converts a finding whose stacks the caller added (raw, for a crash journal) and whose
    /// fingerprint it knows (empty while its stacks are not named yet).
    mutating func convert(
        _ finding: Finding, fingerprint: String, allocationStack: Int?, eventStack: Int?, relatedStack: Int?,
        chainStacks: [Int?]
    ) -> ReportFinding {
        var chain: [ReportChainStage]?
        if !finding.chain.isEmpty {
            chain = zip(finding.chain, chainStacks).map { stage, stack in
                ReportChainStage(
                    label: stage.label, resourceKind: name(of: stage.resourceKind), allocationStack: stack,
                    fingerprint: stage.fingerprint, innerOf: stage.innerOf, isCause: stage.isCause)
            }
        }
        return ReportFinding(
            id: finding.id, kind: finding.kind.rawValue, severity: finding.severity, message: finding.message,
            label: finding.label, resourceKind: finding.resourceKind.map { name(of: $0) }, test: name(of: finding.test),
            fingerprint: fingerprint, policy: finding.policy.rawValue,
            suppressedBy: finding.suppressedBy, allocationStack: allocationStack, eventStack: eventStack,
            relatedStack: relatedStack, thread: finding.thread.map(Self.thread),
            otherThread: finding.otherThread.map(Self.thread),
            time: (finding.time * 1000).rounded() / 1000, details: finding.details, retainPath: finding.retainPath,
            chain: chain)
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
