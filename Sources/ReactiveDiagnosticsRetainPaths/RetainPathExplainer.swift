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
    package func explain(sites: [[ResourceAnchor]], attempts: Int) -> [ReportRetainPath?] {
        guard !sites.isEmpty else { return [] }
        let regions = MemoryRegions.current()
        var paths = [ReportRetainPath?](repeating: nil, count: sites.count)
        var pending: [(site: Int, explanation: RetainPathBuilder.PendingExplanation)] = []
        for (site, anchors) in sites.enumerated() {
            var first: RetainPathBuilder.PendingExplanation?
            for anchor in anchors.prefix(attempts) {
                let explanation = builder.searchCycle(from: anchor, regions: regions)
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
