import ReactiveDiagnosticsReport

extension RetainPathView {
    /// A retain cycle drawn as boxes and arrows on the HTML page: the owner, its property, the
    /// cancellable, the subscription, the capturing closure, and the arrow back to the owner;
    /// the edge the fix cuts is marked.
    ///
    /// ```swift
    /// if let graph = group.retainPath?.graph, let cut = graph.edges.firstIndex(where: \.cut) {
    ///     print(graph.nodes[cut].label, "→", graph.nodes[(cut + 1) % graph.nodes.count].label)
    /// }
    /// ```
    public struct Graph: Codable, Sendable, Equatable {
        /// A box: an object, a property or a closure.
        ///
        /// ```swift
        /// let owners = graph.nodes.filter { $0.role == "owner" }.map(\.label)   // ["FeedViewModel"]
        /// ```
        public struct Node: Codable, Sendable, Equatable {
            /// What the box says (`FeedViewModel`, `.cancellables: Set<AnyCancellable>`, `closure at A.swift:3`).
            public var label: String
            /// `owner`, `property`, `cancellable`, `subscription`, `closure`, `object` (the user's) or `framework`.
            public var role: String
        }

        /// An arrow from `nodes[i]` to `nodes[i + 1]` (the last one back to the first).
        ///
        /// ```swift
        /// let cut = graph.edges.first(where: \.cut)?.label   // "captures `self` strongly"
        /// ```
        public struct Edge: Codable, Sendable, Equatable {
            /// How the one holds the other (`.receiveValue`, `captures self strongly`).
            public var label: String
            /// Whether the fix cuts this reference.
            public var cut: Bool
        }

        /// The boxes, from the owner around the cycle.
        public var nodes: [Node]
        /// The arrows; `edges[i]` leaves `nodes[i]`, and the last one returns to `nodes[0]`.
        public var edges: [Edge]

        /// The drawing of `path`'s cycle, or `nil` when it is not a cycle.
        init?(_ path: ReportRetainPath) {
            guard path.verdict == .cycle, !path.cycle.isEmpty else { return nil }
            var nodes: [Node] = []
            var edges: [Edge] = []
            let capturing = Self.capturingStep(path.cycle)
            var cutPlaced = false
            for (index, step) in path.cycle.enumerated() {
                let next = path.cycle[(index + 1) % path.cycle.count]
                nodes.append(Node(label: ReportRetainPath.displayType(step.type), role: Self.role(step, index: index)))
                var links = step.links[...]
                // The owner's property as a box of its own.
                if index == 0, step.category == .user, let first = links.first, first.kind == .field,
                    let name = first.name
                {
                    edges.append(Edge(label: "stores", cut: false))
                    let type = first.type.map { ": " + ReportRetainPath.displayType($0) } ?? ""
                    nodes.append(Node(label: "." + name + type, role: "property"))
                    links = links.dropFirst()
                }
                if let closureIndex = links.lastIndex(where: { $0.closure?.category == .user }),
                    let closure = links[closureIndex].closure
                {
                    edges.append(Edge(label: Self.fieldPath(links[..<closureIndex]), cut: false))
                    nodes.append(Node(label: Self.closureText(closure), role: "closure"))
                    let capture = links[(closureIndex + 1)...].first { $0.kind == .capture }
                    let name = capture?.name ?? links[closureIndex].name
                    let cut = index == capturing
                    cutPlaced = cutPlaced || cut
                    edges.append(Edge(label: "captures " + (name.map { "`\($0)`" } ?? "it") + " strongly", cut: cut))
                } else {
                    var label = Self.fieldPath(links)
                    if label.isEmpty { label = links.contains { $0.kind == .element } ? "element" : "holds" }
                    let cut =
                        capturing == nil && !cutPlaced && step.category != .user && next.category == .user
                        && links.contains { $0.kind == .field }
                    cutPlaced = cutPlaced || cut
                    edges.append(Edge(label: label + (cut ? " (strong)" : ""), cut: cut))
                }
            }
            self.nodes = nodes
            self.edges = edges
        }

        private static func role(_ step: ReportRetainStep, index: Int) -> String {
            if index == 0 { return "owner" }
            if step.isSubscription { return "subscription" }
            if step.type.hasPrefix("AnyCancellable") { return "cancellable" }
            return step.category == .user ? "object" : "framework"
        }

        /// The step whose user closure closes the cycle (the last step with one, as the fix names it).
        private static func capturingStep(_ cycle: [ReportRetainStep]) -> Int? {
            cycle.firstIndex { step in step.links.contains { $0.closure?.category == .user } }
        }

        private static func fieldPath(_ links: ArraySlice<ReportRetainLink>) -> String {
            links.filter { $0.kind == .field }.compactMap(\.name).map { "." + $0 }.joined()
        }

        private static func closureText(_ closure: ReportClosure) -> String {
            if let file = closure.file, let line = closure.line, line > 0 {
                return "closure at \(file.split(separator: "/").last.map(String.init) ?? file):\(line)"
            }
            return closure.function
        }
    }
}

extension GroupView {
    /// The mechanical fix of a finding (`reactive-diag fix`), as the HTML page shows it under
    /// the retain path.
    ///
    /// ```swift
    /// if let fix = group.fix { print(fix.sentence); print(fix.diff) }
    /// ```
    public struct Fix: Codable, Sendable, Equatable {
        /// `fix: …`, `no mechanical fix: …`, `already fixed: …` or `refused: …`.
        public var sentence: String
        /// The unified diff of the fix (empty without one).
        public var diff: String
    }
}

extension ReportView {
    /// The view with each cycle's drawing and, when `fixer` is given, each group's fix: what
    /// the HTML page shows under "why it is still alive".
    func withRetainGraphsAndFixes(report: DiagnosticsReport, fixer: (any FindingFixing)?) -> ReportView {
        var view = self
        var representatives: [(group: Int, finding: ReportFinding)] = []
        for (index, group) in view.groups.enumerated() {
            let ids = Set(group.findingIDs)
            guard let finding = report.findings.first(where: { ids.contains($0.id) && $0.message == group.message })
            else { continue }
            if let path = finding.retainPath, view.groups[index].retainPath != nil {
                view.groups[index].retainPath?.graph = RetainPathView.Graph(path)
            }
            representatives.append((index, finding))
        }
        if let fixer {
            let outcomes = fixer.outcomes(for: representatives.map(\.finding), in: report)
            for (entry, outcome) in zip(representatives, outcomes) {
                view.groups[entry.group].fix = GroupView.Fix(
                    sentence: outcome.sentence, diff: outcome.files.map(\.diff).joined())
            }
        }
        return view
    }
}
