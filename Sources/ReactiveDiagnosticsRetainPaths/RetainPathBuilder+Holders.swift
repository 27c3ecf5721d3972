import ReactiveDiagnosticsReport
import ReactiveDiagnosticsSymbolication

extension RetainPathBuilder {
    /// Levels of holders looked for above a subscription that is not in a cycle.
    static let holderLevels = 8
    /// Objects looked at per level.
    static let holdersPerLevel = 16

    /// One object's search upward for what holds it.
    private struct HolderSearch {
        /// Holder → the object it holds, on the way to the anchor.
        var below: [UInt: UInt] = [:]
        var frontier: [UInt]
        var seen: Set<UInt>
        /// References from image data no symbol names.
        var unnamed = 0
        /// Whether a global holder was found.
        var found = false
        /// Whether an object looked at had no holder in the memory scanned (a thread's stack
        /// or a register may hold it), or holders were left unseen (a limit): then the objects
        /// met are not known to be held only by each other.
        var open = false
        /// Whether the objects met include a way from the anchor back to itself: the walk's
        /// loop, or the object the anchor was found holding (`closedBy`).
        var hasLoop: Bool
        var closedBy: UInt?

        init(anchor: UInt, loop: [CycleSearch.Edge]) {
            frontier = [anchor]
            seen = [anchor]
            hasLoop = !loop.isEmpty
            for edge in loop where edge.from != anchor {
                if seen.insert(edge.from).inserted {
                    frontier.append(edge.from)
                }
                below[edge.from] = edge.reference.target
            }
        }

        /// Whether everything met is held only by what was met, with the anchor on a loop:
        /// nothing outside holds the anchor.
        var isClosed: Bool {
            !found && !open && frontier.isEmpty && (hasLoop || closedBy != nil)
        }
    }

    /// Looks for what holds each of `anchors` from outside, upward through the objects that
    /// hold it, to a global or static variable; records the variable and the objects on the
    /// way in the path of the same index. One scan of memory per level serves every anchor.
    /// An anchor's `loop` (its way back to itself the walk found) is looked for with it.
    ///
    /// Returns, per anchor, the loop that alone holds it when nothing else does: `[]` when it
    /// is the walk's `loop`, else the objects from the anchor round to the one that holds it
    /// (found by the scans); `nil` when something outside holds it, or that could not be told.
    func findOutsideHolders(
        of anchors: [(anchor: UInt, loop: [CycleSearch.Edge])], walker: HeapWalker,
        deadline: ContinuousClock.Instant, into paths: inout [ReportRetainPath]
    ) -> [[UInt]?] {
        // The levels scan one copy of memory, taken by the first.
        var scan = HolderScan(walker: walker, deadline: deadline, keepsCopy: true)
        var searches = anchors.map { HolderSearch(anchor: $0.anchor, loop: $0.loop) }
        for _ in 0..<Self.holderLevels {
            let active = searches.indices.filter { !searches[$0].found && !searches[$0].frontier.isEmpty }
            guard !active.isEmpty else { break }
            var targets: [UInt] = []
            var listed: Set<UInt> = []
            for index in active {
                for object in searches[index].frontier where listed.insert(object).inserted {
                    targets.append(object)
                }
            }
            let holders = scan.holders(of: targets, hitLimit: HolderScan.hitLimit * active.count)
            for index in active {
                climb(
                    &searches[index], holders: holders, anchor: anchors[index].anchor, walker: walker,
                    into: &paths[index])
                if scan.reachedHitLimit {
                    searches[index].open = true
                }
            }
        }
        var loops: [[UInt]?] = []
        for index in searches.indices {
            let search = searches[index]
            if search.unnamed > 0 {
                paths[index].notes.append(
                    "\(search.unnamed) reference(s) from image data no symbol names (a runtime's own tables) not taken as the holder"
                )
            }
            if search.isClosed && !scan.wasCut {
                loops.append(search.hasLoop ? [] : loop(of: search, anchor: anchors[index].anchor))
                continue
            }
            loops.append(nil)
            guard !search.found else { continue }
            if scan.reservedBytesSkipped > 0 {
                paths[index].notes.append(
                    "\(scan.reservedBytesSkipped >> 30) GiB of reserved address space (a sanitizer's shadow memory?) was not scanned"
                )
            }
            if scan.wasCut {
                paths[index].notes.append("the search for what holds it stopped at the time limit")
            } else if !search.frontier.isEmpty {
                paths[index].notes.append(
                    "the search for what holds it stopped after \(Self.holderLevels) levels of holders")
            }
        }
        return loops
    }

    /// The objects from the anchor round to the one that holds it, by what each holds.
    private func loop(of search: HolderSearch, anchor: UInt) -> [UInt] {
        var objects = [anchor]
        var current = search.closedBy
        while let object = current, object != anchor, objects.count <= search.seen.count {
            objects.append(object)
            current = search.below[object]
        }
        return objects
    }

    /// One level up for one search: a global holder ends it (recorded in `path`), held objects
    /// are the next level's frontier.
    private func climb(
        _ search: inout HolderSearch, holders: [UInt: [HolderScan.Holder]], anchor: UInt,
        walker: HeapWalker, into path: inout ReportRetainPath
    ) {
        var next: [UInt] = []
        for held in search.frontier {
            let found = holders[held] ?? []
            if found.isEmpty {
                search.open = true
            }
            for holder in found {
                switch holder {
                case .global(let address):
                    let variable = GlobalSymbols.shared.variable(at: address, resolver: resolver)
                    // A word the symbol table does not name, when it can be asked, is no
                    // variable of the app's: a runtime's own tables (a sanitizer's).
                    if variable == nil, resolver.symbolizer != nil {
                        search.unnamed += 1
                        search.open = true
                        continue
                    }
                    path.holder = variable?.name ?? "a global or static variable"
                    path.heldBy = chain(from: address, held: held, below: search.below, anchor: anchor, walker: walker)
                    search.found = true
                    search.frontier = []
                    return
                case .object(let object):
                    if object == anchor, search.closedBy == nil {
                        search.closedBy = held
                    }
                    guard !search.seen.contains(object) else { continue }
                    guard next.count < Self.holdersPerLevel else {
                        search.open = true
                        continue
                    }
                    search.seen.insert(object)
                    search.below[object] = held
                    next.append(object)
                }
            }
        }
        search.frontier = next
    }

    /// The steps from a global variable at `global` (which holds `held`) down to the anchor.
    private func chain(
        from global: UInt, held: UInt, below: [UInt: UInt], anchor: UInt,
        walker: HeapWalker
    ) -> [ReportRetainStep] {
        let variable = GlobalSymbols.shared.variable(at: global, resolver: resolver)
        var steps = [
            ReportRetainStep(
                type: variable?.type.map(Self.unqualified) ?? objectType(held, walker: walker).name,
                category: .user)
        ]
        var current: UInt? = held
        while let object = current {
            let type = objectType(object, walker: walker)
            let isStorage: Bool
            if case .instance(let metadata)? = walker.classifier.classify(object) {
                isStorage = types.classInfo(metadata, memory: walker.memory)?.storage != nil
            } else {
                isStorage = true
            }
            if !isStorage {
                steps.append(
                    ReportRetainStep(
                        type: type.name, module: type.module, category: type.category, isSubscription: object == anchor)
                )
            }
            current = object == anchor ? nil : below[object]
        }
        // A variable of a class type: the variable and the object it holds are one step.
        if steps.count > 1, steps[1].type == steps[0].type {
            steps[0].module = steps[1].module
            steps.remove(at: 1)
        }
        // The anchor is a closure context or storage (a hooked RxSwift subscription's): the
        // object that holds it is the subscription people know.
        if steps.count > 1, !steps.contains(where: \.isSubscription) {
            steps[steps.count - 1].isSubscription = true
        }
        return steps
    }

    /// `Swift.Set<OpenCombine.AnyCancellable>` → `Set<AnyCancellable>`.
    static func unqualified(_ type: String) -> String {
        var output = ""
        var word = ""
        for character in type {
            if character.isLetter || character.isNumber || character == "_" {
                word.append(character)
            } else if character == "." {
                word = ""
            } else {
                output += word
                word = ""
                output.append(character)
            }
        }
        return output + word
    }
}
