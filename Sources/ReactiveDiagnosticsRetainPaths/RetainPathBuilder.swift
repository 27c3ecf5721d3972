import Foundation
import ReactiveDiagnosticsSymbolication
import ReactiveDiagnosticsReport

/// Walks the heap from one subscription's anchor object and turns what the walk found into
/// a ``ReportRetainPath``: names, closures' source lines and captures' names.
struct RetainPathBuilder {
    let limits: RetainPathExplainer.Budget
    let types: TypeReader
    let symbols: ClosureSymbols
    let classifier: FrameClassifier
    /// Names global variables (the symbol table, through llvm-symbolizer).
    let resolver: SourceLineResolver
    /// Whether closures' source lines and captures' names are looked up (debug information,
    /// through llvm-symbolizer): ``Configuration/resolvesSourceLines``.
    let resolvesClosureLines: Bool

    init(
        limits: RetainPathExplainer.Budget, types: TypeReader = .shared, symbols: ClosureSymbols = .shared,
        classifier: FrameClassifier = .shared, resolver: SourceLineResolver = .shared, resolvesClosureLines: Bool = true
    ) {
        self.limits = limits
        self.types = types
        self.symbols = symbols
        self.classifier = classifier
        self.resolver = resolver
        self.resolvesClosureLines = resolvesClosureLines
    }

    /// Why the object at `anchor` is alive. `anchor` is an address: it is never retained, and
    /// an address that is no longer an object ends the walk as `unknown`.
    func explain(anchor: UInt) -> ReportRetainPath {
        explain(.object(anchor))
    }

    /// Why the resource an anchor names is alive: from the anchor object, or from the object
    /// found holding the anchor's object.
    func explain(_ anchor: ResourceAnchor) -> ReportRetainPath {
        let regions = MemoryRegions.current()
        return findOutsideHolders(of: [searchCycle(from: anchor, regions: regions)], regions: regions)[0]
    }

    /// One explanation after its search for a cycle: final, or waiting for the search for what
    /// holds it from outside (``findOutsideHolders(of:regions:)``), which explanations made at
    /// one checkpoint share.
    struct PendingExplanation {
        var path: ReportRetainPath
        /// The object whose holders are still to be looked for (no cycle was found from it).
        var outside: UInt?
        /// The way from `outside` back to itself through no code of the user's (a subscription
        /// and its subscriber holding each other), when the walk found one: its objects are
        /// looked for holders with it, and when nothing else holds any of them the path is
        /// ``ReportRetainPath/Verdict/heldOnlyByItself``.
        var loop: [CycleSearch.Edge] = []
        /// What the search for a cycle took.
        var elapsed: Duration
    }

    /// The first half of an explanation: the walk from the anchor, which finds a cycle or not.
    /// A walker of its own (memory read afresh), over the memory map `regions`.
    func searchCycle(from anchor: ResourceAnchor, regions: MemoryRegions) -> PendingExplanation {
        let clock = ContinuousClock()
        let start = clock.now
        let walker = HeapWalker(memory: ProcessMemory(), regions: regions, types: types)
        var (path, outside, loop) = searchCycle(anchor, walker: walker, deadline: start.advanced(by: limits.time))
        path.notes += walker.notes
        return PendingExplanation(path: path, outside: outside, loop: loop, elapsed: clock.now - start)
    }

    /// The second half, for every explanation that found no cycle, all at once: one scan of
    /// memory per level of holders, for all their objects together (a test that leaked a dozen
    /// subscriptions pays for one scan per level, not a dozen). Each path's time is its own walk
    /// plus an even share of the scans.
    func findOutsideHolders(of pending: [PendingExplanation], regions: MemoryRegions) -> [ReportRetainPath] {
        var paths = pending.map(\.path)
        let waiting = pending.indices.filter { pending[$0].outside != nil }
        var share = Duration.zero
        if !waiting.isEmpty {
            let clock = ContinuousClock()
            let start = clock.now
            let walker = HeapWalker(memory: ProcessMemory(), regions: regions, types: types)
            var found = waiting.map { paths[$0] }
            let closed = findOutsideHolders(
                of: waiting.map { (pending[$0].outside ?? 0, pending[$0].loop) }, walker: walker,
                deadline: start.advanced(by: limits.time * waiting.count), into: &found)
            for (position, index) in waiting.enumerated() {
                paths[index] = found[position]
                if let loop = closed[position] {
                    paths[index].verdict = .heldOnlyByItself
                    paths[index].cycle =
                        pending[index].loop.isEmpty
                        ? loop.map { stepOnLoop($0, anchor: pending[index].outside ?? 0, walker: walker) }
                        : steps(
                            of: pending[index].loop, anchor: pending[index].outside ?? 0, walker: walker,
                            judge: makeJudge())
                }
            }
            share = (clock.now - start) / waiting.count
        }
        for index in paths.indices {
            let elapsed = pending[index].elapsed + (pending[index].outside != nil ? share : .zero)
            paths[index].milliseconds =
                (Double(elapsed.components.attoseconds) / 1e15
                + Double(elapsed.components.seconds) * 1000).rounded(toPlaces: 3)
        }
        return paths
    }

    /// The walk from the anchor: the path when it ends here (a cycle, or a walk cut short), and
    /// the object whose outside holders are to be looked for otherwise.
    private func searchCycle(
        _ anchor: ResourceAnchor, walker: HeapWalker, deadline: ContinuousClock.Instant
    ) -> (ReportRetainPath, outside: UInt?, loop: [CycleSearch.Edge]) {
        let start: UInt
        switch anchor {
        case .object(let address):
            start = address
        case .holderOf(let held):
            var scan = HolderScan(walker: walker, deadline: deadline)
            let holders = scan.holders(of: [held])[held] ?? []
            guard
                case .object(let holder)? = holders.first(where: {
                    if case .object = $0 { return true } else { return false }
                })
            else {
                return (
                    ReportRetainPath(
                        verdict: .unknown,
                        notes: [
                            "the subscription's object could not be found (\(scan.bytesScanned / 1_048_576) MB of memory scanned)"
                        ]),
                    nil, []
                )
            }
            start = holder
        }
        guard walker.classifier.classify(start) != nil else {
            return (
                ReportRetainPath(verdict: .unknown, notes: ["the subscription's object could not be read"]), nil, []
            )
        }
        let judge = makeJudge()
        let search = CycleSearch(
            walker: walker, judge: judge,
            limits: CycleSearch.Limits(objects: limits.objects, depth: limits.depth, deadline: deadline)
        )
        .search(from: start)
        var path = ReportRetainPath(verdict: .notACycle)
        var outside: UInt?
        if let cycle = search.cycle {
            path.verdict = .cycle
            path.cycle = steps(of: cycle, anchor: start, walker: walker, judge: judge)
        } else if let limit = search.stoppedBy {
            path.verdict = .unknown
            path.notes.append("the walk stopped at \(limit) without finding a cycle")
        } else {
            outside = start
        }
        path.holds = search.holdings.compactMap { hold($0, walker: walker, judge: judge) }
        path.objectsVisited = search.objectsVisited
        return (path, outside, outside == nil ? [] : search.loop ?? [])
    }

    func makeJudge() -> CycleSearch.Judge {
        var userObjects: [UInt: Bool] = [:]
        return CycleSearch.Judge(
            isUserClosure: { function in
                let facts = symbols.facts(of: function)
                return facts.category == .user && !facts.isGlue
            },
            isUserObject: { metadata in
                if let known = userObjects[metadata] { return known }
                let answer = isUserType(metadata)
                userObjects[metadata] = answer
                return answer
            })
    }

    // MARK: Types

    private func isUserType(_ metadata: UInt) -> Bool {
        guard category(of: metadata) == .user, let pointer = UnsafeRawPointer(bitPattern: metadata) else {
            return false
        }
        return !RetainPathPlumbing.contains(unsafeBitCast(pointer, to: Any.Type.self))
    }

    private func category(of metadata: UInt) -> FrameCategory {
        classifier.category(module: types.module(of: metadata), symbol: nil, imagePath: nil)
    }

    func objectType(_ address: UInt, walker: HeapWalker) -> (name: String, module: String?, category: FrameCategory) {
        switch walker.classifier.classify(address) {
        case .instance(let metadata)?:
            return (types.name(of: metadata), types.module(of: metadata), category(of: metadata))
        case .context?, .genericBox?:
            return ("closure context", nil, .system)
        case .other(let what)?:
            return (what, nil, .system)
        case nil:
            return ("an object that could not be read", nil, .system)
        }
    }

    // MARK: Cycle

    private func steps(
        of edges: [CycleSearch.Edge], anchor: UInt, walker: HeapWalker,
        judge: CycleSearch.Judge
    ) -> [ReportRetainStep] {
        var entries = edges.map { (object: $0.from, reference: $0.reference) }
        // Start at the owner: the first of the user's objects, else the first holder of a user closure.
        let isUserObject: (UInt) -> Bool = { address in
            if case .instance(let metadata)? = walker.classifier.classify(address) {
                return judge.isUserObject(metadata)
            }
            return false
        }
        let owner =
            entries.firstIndex { $0.object != anchor && isUserObject($0.object) }
            ?? entries.firstIndex { isUserObject($0.object) }
            ?? entries.firstIndex { entry in
                entry.reference.path.contains { step in
                    if case .closure(let function) = step { return judge.isUserClosure(function) }
                    return false
                }
            }
            ?? 0
        entries = Array(entries[owner...] + entries[..<owner])
        // An object met twice: drop the detour between its visits (a subscriber and its
        // subscription hold each other; the user's cycle goes around them).
        var holdsSubscription: UInt?
        var index = 0
        while index < entries.count {
            if let later = entries[(index + 1)...].lastIndex(where: { $0.object == entries[index].object }) {
                if entries[index..<later].contains(where: { $0.object == anchor }) {
                    holdsSubscription = entries[index].object
                }
                entries.removeSubrange(index..<later)
            }
            index += 1
        }
        // A closure context is not an object people think of: its captures are read as part of
        // the closure that holds it, in the step before.
        var merged: [(object: UInt, reference: HeapReference, isSubscription: Bool)] = []
        for entry in entries {
            let isSubscription = entry.object == anchor || entry.object == holdsSubscription
            if case .instance? = walker.classifier.classify(entry.object) {
                merged.append((entry.object, entry.reference, isSubscription))
            } else if !merged.isEmpty {
                merged[merged.count - 1].reference.path += entry.reference.path
                merged[merged.count - 1].reference.target = entry.reference.target
                merged[merged.count - 1].reference.strength = entry.reference.strength
                merged[merged.count - 1].isSubscription = merged[merged.count - 1].isSubscription || isSubscription
            } else {
                merged.append((entry.object, entry.reference, isSubscription))
            }
        }
        return merged.map { entry in
            let type = objectType(entry.object, walker: walker)
            return ReportRetainStep(
                type: type.name, module: type.module, category: type.category, isSubscription: entry.isSubscription,
                links: links(entry.reference))
        }
    }

    /// One object of a loop the search for holders closed (its links are not known: the
    /// walk from the anchor did not get there).
    private func stepOnLoop(_ object: UInt, anchor: UInt, walker: HeapWalker) -> ReportRetainStep {
        let type = objectType(object, walker: walker)
        return ReportRetainStep(
            type: type.name, module: type.module, category: type.category, isSubscription: object == anchor)
    }

    // MARK: Holds

    private func hold(_ edge: CycleSearch.Edge, walker: HeapWalker, judge: CycleSearch.Judge) -> ReportRetainHold? {
        let reference = edge.reference
        let userClosure = reference.path.contains { step in
            if case .closure(let function) = step { return judge.isUserClosure(function) }
            return false
        }
        let target = reference.target != 0 ? objectType(reference.target, walker: walker) : nil
        guard userClosure || target?.category == .user else { return nil }
        let type = reference.declaredType ?? target?.name ?? "?"
        return ReportRetainHold(
            from: objectType(edge.from, walker: walker).name, links: links(reference), type: type,
            strength: Self.strength(reference.strength))
    }

    // MARK: Links

    func links(_ reference: HeapReference) -> [ReportRetainLink] {
        var links: [ReportRetainLink] = []
        var closure: ClosureFacts?
        for step in reference.path {
            switch step {
            case .field(let name, let type):
                links.append(ReportRetainLink(kind: .field, name: name, type: types.name(of: type)))
            case .element:
                links.append(ReportRetainLink(kind: .element))
            case .key:
                links.append(ReportRetainLink(kind: .key))
            case .value:
                links.append(ReportRetainLink(kind: .value))
            case .payload(let name):
                links.append(ReportRetainLink(kind: .payload, name: name))
            case .existential:
                links.append(ReportRetainLink(kind: .existential))
            case .box:
                links.append(ReportRetainLink(kind: .box))
            case .closure(let function):
                var facts = symbols.facts(of: function)
                if resolvesClosureLines && facts.category == .user && !facts.isGlue {
                    facts = symbols.resolved(function, resolver: resolver)
                }
                closure = facts
                links.append(ReportRetainLink(kind: .closure, closure: facts.report))
            case .capture(let index, let count, let type):
                links.append(
                    ReportRetainLink(
                        kind: .capture, name: closure?.captureName(index, of: count),
                        type: type == 0 ? nil : types.name(of: type)))
            case .untypedWord:
                links.append(ReportRetainLink(kind: .untyped))
            }
        }
        // A closure whose context is the one object it captures: name that capture.
        if links.last?.kind == .closure, let closure {
            links[links.count - 1].name = closure.captureName(0, of: 1)
        }
        if !links.isEmpty {
            links[links.count - 1].strength = Self.strength(reference.strength)
        }
        return links
    }

    static func strength(_ strength: HeapReference.Strength) -> ReportReferenceStrength {
        switch strength {
        case .strong: return .strong
        case .weak: return .weak
        case .unowned: return .unowned
        case .notStrong: return .notStrong
        case .unknown: return .unknown
        }
    }
}

extension Double {
    func rounded(toPlaces places: Int) -> Double {
        let scale = pow(10, Double(places))
        return (self * scale).rounded() / scale
    }
}
