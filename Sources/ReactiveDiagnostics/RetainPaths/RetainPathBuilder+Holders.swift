import ReactiveDiagnosticsReport
import ReactiveDiagnosticsSymbolication

extension RetainPathBuilder {
    /// Levels of holders looked for above a subscription that is not in a cycle.
    static let holderLevels = 8
    /// Objects looked at per level.
    static let holdersPerLevel = 16

    /// Looks for what holds `anchor` from outside, upward through the objects that hold it,
    /// to a global or static variable; records the variable and the objects on the way.
    func findOutsideHolder(of anchor: UInt, walker: HeapWalker, deadline: ContinuousClock.Instant,
                           into path: inout ReportRetainPath) {
        var scan = HolderScan(walker: walker, deadline: deadline)
        var below: [UInt: UInt] = [:]   // holder → the object it holds, on the way to the anchor
        var frontier = [anchor]
        var seen: Set<UInt> = [anchor]
        var unnamed = 0
        defer {
            if unnamed > 0 {
                path.notes.append("\(unnamed) reference(s) from image data no symbol names (a runtime's own tables) not taken as the holder")
            }
        }
        for _ in 0..<Self.holderLevels where !frontier.isEmpty {
            let holders = scan.holders(of: frontier)
            var next: [UInt] = []
            for held in frontier {
                for holder in holders[held] ?? [] {
                    switch holder {
                    case .global(let address):
                        let variable = GlobalSymbols.shared.variable(at: address, resolver: resolver)
                        // A word the symbol table does not name, when it can be asked, is no
                        // variable of the app's: a runtime's own tables (a sanitizer's).
                        if variable == nil, resolver.symbolizer != nil {
                            unnamed += 1
                            continue
                        }
                        path.holder = variable?.name ?? "a global or static variable"
                        path.heldBy = chain(from: address, held: held, below: below, anchor: anchor, walker: walker)
                        return
                    case .object(let object):
                        guard seen.insert(object).inserted, next.count < Self.holdersPerLevel else { continue }
                        below[object] = held
                        next.append(object)
                    }
                }
            }
            frontier = next
        }
        if scan.reservedBytesSkipped > 0 {
            path.notes.append("\(scan.reservedBytesSkipped >> 30) GiB of reserved address space (a sanitizer's shadow memory?) was not scanned")
        }
        if scan.wasCut {
            path.notes.append("the search for what holds it stopped at the time limit")
        } else if !frontier.isEmpty {
            path.notes.append("the search for what holds it stopped after \(Self.holderLevels) levels of holders")
        }
    }

    /// The steps from a global variable at `global` (which holds `held`) down to the anchor.
    private func chain(from global: UInt, held: UInt, below: [UInt: UInt], anchor: UInt,
                       walker: HeapWalker) -> [ReportRetainStep] {
        let variable = GlobalSymbols.shared.variable(at: global, resolver: resolver)
        var steps = [ReportRetainStep(
            type: variable?.type.map(Self.unqualified) ?? objectType(held, walker: walker).name,
            category: .user)]
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
                steps.append(ReportRetainStep(
                    type: type.name, module: type.module, category: type.category, isSubscription: object == anchor))
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
