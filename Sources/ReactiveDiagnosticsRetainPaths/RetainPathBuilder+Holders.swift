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

        init(anchor: UInt) {
            frontier = [anchor]
            seen = [anchor]
        }
    }

    /// Looks for what holds each of `anchors` from outside, upward through the objects that
    /// hold it, to a global or static variable; records the variable and the objects on the
    /// way in the path of the same index. One scan of memory per level serves every anchor.
    func findOutsideHolders(
        of anchors: [UInt], walker: HeapWalker, deadline: ContinuousClock.Instant,
        into paths: inout [ReportRetainPath]
    ) {
        var scan = HolderScan(walker: walker, deadline: deadline)
        var searches = anchors.map(HolderSearch.init(anchor:))
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
                climb(&searches[index], holders: holders, anchor: anchors[index], walker: walker, into: &paths[index])
            }
        }
        for index in searches.indices {
            if searches[index].unnamed > 0 {
                paths[index].notes.append(
                    "\(searches[index].unnamed) reference(s) from image data no symbol names (a runtime's own tables) not taken as the holder"
                )
            }
            guard !searches[index].found else { continue }
            if scan.reservedBytesSkipped > 0 {
                paths[index].notes.append(
                    "\(scan.reservedBytesSkipped >> 30) GiB of reserved address space (a sanitizer's shadow memory?) was not scanned"
                )
            }
            if scan.wasCut {
                paths[index].notes.append("the search for what holds it stopped at the time limit")
            } else if !searches[index].frontier.isEmpty {
                paths[index].notes.append(
                    "the search for what holds it stopped after \(Self.holderLevels) levels of holders")
            }
        }
    }

    /// One level up for one search: a global holder ends it (recorded in `path`), held objects
    /// are the next level's frontier.
    private func climb(
        _ search: inout HolderSearch, holders: [UInt: [HolderScan.Holder]], anchor: UInt,
        walker: HeapWalker, into path: inout ReportRetainPath
    ) {
        var next: [UInt] = []
        for held in search.frontier {
            for holder in holders[held] ?? [] {
                switch holder {
                case .global(let address):
                    let variable = GlobalSymbols.shared.variable(at: address, resolver: resolver)
                    // A word the symbol table does not name, when it can be asked, is no
                    // variable of the app's: a runtime's own tables (a sanitizer's).
                    if variable == nil, resolver.symbolizer != nil {
                        search.unnamed += 1
                        continue
                    }
                    path.holder = variable?.name ?? "a global or static variable"
                    path.heldBy = chain(from: address, held: held, below: search.below, anchor: anchor, walker: walker)
                    search.found = true
                    search.frontier = []
                    return
                case .object(let object):
                    guard search.seen.insert(object).inserted, next.count < Self.holdersPerLevel else { continue }
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
