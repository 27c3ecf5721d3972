/// Finds why an object is alive when nothing outside should hold it: the shortest path of
/// strong references from the object back to itself that goes through the user's code (one
/// of the user's objects, or a closure the user wrote). A subscription and its subscriber
/// hold each other by design until it ends; only a loop through user code is a retain cycle.
struct CycleSearch {
    /// How far the search may go.
    struct Limits {
        var objects = 4000
        var depth = 32
        var deadline: ContinuousClock.Instant
    }

    /// One reference, from the object that holds it.
    struct Edge {
        var from: UInt
        var reference: HeapReference
    }

    /// What the search found.
    struct Result {
        /// From the anchor back to the anchor, when there is a cycle.
        var cycle: [Edge]?
        /// The shortest way from the anchor back to itself that is not through the user's code
        /// (a subscription and its subscriber holding each other), when there is one and no
        /// cycle: whether anything outside holds it is the search for holders' to tell.
        var loop: [Edge]?
        /// What the anchor and the framework objects around it hold of the user's: closures'
        /// captures (strong or not) and user objects.
        var holdings: [Edge]
        var objectsVisited: Int
        /// The limit that stopped the search, when one did.
        var stoppedBy: String?
    }

    /// Questions about code and types the search asks (answered with symbols and names).
    struct Judge {
        /// Whether a closure's code is the user's.
        var isUserClosure: (UInt) -> Bool
        /// Whether instances of a class are the user's own objects (not a framework's, and not
        /// a subscriber or subscription the user wrote).
        var isUserObject: (UInt) -> Bool
    }

    let walker: HeapWalker
    let judge: Judge
    let limits: Limits

    private struct State: Hashable {
        var object: UInt
        var throughUser: Bool
    }

    func search(from anchor: UInt) -> Result {
        walker.stopAt.insert(anchor)
        var records: [UInt: HeapWalker.ObjectRecord] = [:]
        var parents: [State: (State, HeapReference)] = [:]
        var depths: [State: Int] = [:]
        let start = State(object: anchor, throughUser: false)
        var queue = [start]
        var head = 0
        depths[start] = 0
        var holdings: [Edge] = []
        var loop: [Edge]?
        var stoppedBy: String?
        let clock = ContinuousClock()

        func path(to state: State, last: HeapReference, from: UInt) -> [Edge] {
            var edges = [Edge(from: from, reference: last)]
            var current = state
            while let (parent, reference) = parents[current] {
                edges.append(Edge(from: parent.object, reference: reference))
                current = parent
            }
            return edges.reversed()
        }

        while head < queue.count {
            let state = queue[head]
            head += 1
            if records.count >= limits.objects {
                stoppedBy = "the limit of \(limits.objects) objects"
                break
            }
            if clock.now >= limits.deadline {
                stoppedBy = "the time limit"
                break
            }
            let record: HeapWalker.ObjectRecord
            if let known = records[state.object] {
                record = known
            } else {
                guard let read = walker.record(of: state.object) else { continue }
                records[state.object] = read
                record = read
            }
            let depth = depths[state] ?? 0
            for reference in record.references {
                let userEdge = reference.path.contains { step in
                    if case .closure(let function) = step { return judge.isUserClosure(function) }
                    return false
                }
                if !state.throughUser, holdings.count < 32,
                    userEdge || reference.strength != .strong
                        || isUserObject(reference.target)
                {
                    holdings.append(Edge(from: state.object, reference: reference))
                }
                guard reference.strength == .strong || reference.strength == .unknown, reference.target != 0 else {
                    continue
                }
                let throughUser = state.throughUser || userEdge
                if reference.target == anchor {
                    if throughUser {
                        return Result(
                            cycle: path(to: state, last: reference, from: state.object), holdings: holdings,
                            objectsVisited: records.count, stoppedBy: nil)
                    }
                    if loop == nil {
                        loop = path(to: state, last: reference, from: state.object)
                    }
                    continue
                }
                guard depth + 1 < limits.depth else { continue }
                let next = State(object: reference.target, throughUser: throughUser || isUserObject(reference.target))
                guard depths[next] == nil else { continue }
                depths[next] = depth + 1
                parents[next] = (state, reference)
                queue.append(next)
            }
        }
        return Result(
            cycle: nil, loop: loop, holdings: holdings, objectsVisited: records.count, stoppedBy: stoppedBy)
    }

    private func isUserObject(_ address: UInt) -> Bool {
        guard address != 0, case .instance(let metadata)? = walker.classifier.classify(address) else { return false }
        return judge.isUserObject(metadata)
    }
}
