package import ReactiveDiagnosticsReport
package import ReactiveDiagnosticsSymbolication

/// The retain-path module's one door: the objects that explain leaked resources in, why each is
/// still alive out (a retain cycle through the user's code, or what holds it from outside).
///
/// The engine calls it at a test's checkpoint, for leaked resources only; nothing here runs per
/// event. It reads memory without ever faulting or retaining, and names closures and globals
/// through `ReactiveDiagnosticsSymbolication` only.
///
/// ```swift
/// let explainer = RetainPathExplainer(budget: .init(objects: 4000, depth: 32, time: .seconds(1)))
/// let paths = explainer.explain(sites: [[.object(address)]], attempts: 3)
/// print(paths[0]?.textLines().joined(separator: "\n") ?? "no anchor")
/// ```
package struct RetainPathExplainer: Sendable {
    /// How far one explanation walks: objects read, references followed, time spent.
    package struct Budget: Sendable, Equatable {
        /// Objects read at most.
        package var objects: Int
        /// References followed from the anchor at most.
        package var depth: Int
        /// Time spent at most on one anchor.
        package var time: Duration

        /// A budget.
        package init(objects: Int, depth: Int, time: Duration) {
            self.objects = objects
            self.depth = depth
            self.time = time
        }
    }

    private let builder: RetainPathBuilder

    /// An explainer that names globals through `resolver` and looks closures' source lines up
    /// only when `resolvesClosureLines` (debug information, through llvm-symbolizer).
    package init(budget: Budget, resolver: SourceLineResolver = .shared, resolvesClosureLines: Bool = true) {
        builder = RetainPathBuilder(limits: budget, resolver: resolver, resolvesClosureLines: resolvesClosureLines)
    }

    /// Why the object at `anchor` is alive.
    package func explain(_ anchor: ResourceAnchor) -> ReportRetainPath {
        builder.explain(anchor)
    }

    /// Why the leaked resources of each site are alive (the anchors of one site per element):
    /// per site, the first retain cycle among its first `attempts` anchors, else the first
    /// anchor's explanation, whose search for an outside holder is made together with every
    /// other site's (one scan of memory per level for all). `nil` for a site with no anchor.
    /// A site's walks share one time budget: once they have spent it (a walk cut by the time
    /// limit, say), no other anchor of the site is tried.
    package func explain(sites: [[ResourceAnchor]], attempts: Int) -> [ReportRetainPath?] {
        guard !sites.isEmpty else { return [] }
        let regions = MemoryRegions.current()
        var paths = [ReportRetainPath?](repeating: nil, count: sites.count)
        var pending: [(site: Int, explanation: RetainPathBuilder.PendingExplanation)] = []
        for (site, anchors) in sites.enumerated() {
            var first: RetainPathBuilder.PendingExplanation?
            var spent = Duration.zero
            for anchor in anchors.prefix(attempts) where spent < builder.limits.time {
                let explanation = builder.searchCycle(from: anchor, regions: regions)
                spent += explanation.elapsed
                if explanation.path.verdict == .cycle {
                    first = explanation
                    break
                }
                first = first ?? explanation
            }
            if let first {
                pending.append((site, first))
            }
        }
        let explained = builder.findOutsideHolders(of: pending.map(\.explanation), regions: regions)
        for (entry, path) in zip(pending, explained) {
            paths[entry.site] = path
        }
        return paths
    }
}

extension RetainPathExplainer {
    /// The user's objects a task keeps alive through its closure: the class instances its
    /// closure context holds, through the compiler's thunk contexts and boxes (two levels), by
    /// type name, strong references first, each once.
    ///
    /// ```swift
    /// explainer.objectsHeld(byClosureContext: context)   // [(type: "NewsFeedModel", strength: "strong")]
    /// ```
    package func objectsHeld(byClosureContext context: UInt) -> [(type: String, strength: String)] {
        let walker = HeapWalker(memory: ProcessMemory(), regions: MemoryRegions.current())
        var found: [(type: String, strength: String)] = []
        var seen = Set<UInt>()
        var pending: [(address: UInt, depth: Int)] = [(context, 0)]
        while let (address, depth) = pending.popLast(), found.count < 8 {
            guard seen.insert(address).inserted, let record = walker.record(of: address) else { continue }
            for reference in record.references where reference.target != 0 {
                switch walker.classifier.classify(reference.target) {
                case .instance(let metadata)?:
                    let name = builder.types.name(of: metadata)
                    if !found.contains(where: { $0.type == name }) {
                        found.append((name, "\(reference.strength)"))
                    }
                case .context?, .genericBox?:
                    if depth < 2 {
                        pending.append((reference.target, depth + 1))
                    }
                default:
                    continue
                }
            }
        }
        return found.sorted { ($0.strength == "strong" ? 0 : 1) < ($1.strength == "strong" ? 0 : 1) }
    }
}
