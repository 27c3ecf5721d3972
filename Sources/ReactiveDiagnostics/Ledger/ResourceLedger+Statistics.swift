/// Totals and live resources of a ledger at one moment.
///
/// ```swift
/// let statistics = engine.ledger.statistics()
/// for site in statistics.sites.prefix(3) {
///     print("\(site.count) × \(site.kind) '\(site.label)'", engine.describeStack(site.stack, limit: 4))
/// }
/// ```
public struct LedgerStatistics: Sendable, Hashable {
    /// Per kind: registered, peak and live counts.
    public struct KindStatistics: Sendable, Hashable {
        /// The kind.
        public var kind: ResourceKind
        /// Registered over the ledger's life.
        public var registered: Int
        /// The most alive at once.
        public var peak: Int
        /// Alive now.
        public var live: Int
    }

    /// Live resources sharing kind, label and allocation site.
    public struct Site: Sendable, Hashable {
        /// The kind.
        public var kind: ResourceKind
        /// The label.
        public var label: DiagnosticLabel
        /// The allocation stack.
        public var stack: StackID
        /// How many are alive.
        public var count: Int
        /// The tests that allocated them.
        public var tests: Set<TestIdentity>
    }

    /// Kinds that were ever used, in kind order.
    public var kinds: [KindStatistics]
    /// Live sites, most resources first.
    public var sites: [Site]

    /// Live resources by label, most first.
    public var liveByLabel: [(label: DiagnosticLabel, count: Int)] {
        var counts: [DiagnosticLabel: Int] = [:]
        for site in sites {
            counts[site.label, default: 0] += site.count
        }
        return counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key.name < $1.key.name }
            .map { (label: $0.key, count: $0.value) }
    }

    /// Equal when the kinds' counts and the live sites are (``liveByLabel`` follows from them).
    public static func == (lhs: LedgerStatistics, rhs: LedgerStatistics) -> Bool {
        lhs.kinds == rhs.kinds && lhs.sites == rhs.sites
    }

    /// Hashes the kinds' counts and the live sites, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(kinds)
        hasher.combine(sites)
    }
}

extension ResourceLedger {
    /// Counts and live sites now.
    ///
    /// - Complexity: O(slots): scans every shard once.
    public func statistics() -> LedgerStatistics {
        let names = ResourceKind.allNames
        var kinds: [LedgerStatistics.KindStatistics] = []
        for index in 0..<names.count {
            let kind = ResourceKind(index: UInt8(index))
            let registered = registeredCount(of: kind)
            guard registered > 0 else { continue }
            kinds.append(.init(kind: kind, registered: registered, peak: peakCount(of: kind), live: liveCount(of: kind)))
        }
        struct Key: Hashable {
            var kind: ResourceKind
            var label: DiagnosticLabel
            var stack: StackID
        }
        var grouped: [Key: LedgerStatistics.Site] = [:]
        for resource in liveResources() {
            let key = Key(kind: resource.kind, label: resource.label, stack: resource.stack)
            grouped[key, default: .init(kind: resource.kind, label: resource.label, stack: resource.stack, count: 0, tests: [])]
                .count += 1
            if resource.test.isKnown {
                grouped[key]?.tests.insert(resource.test)
            }
        }
        let sites = grouped.values.sorted {
            if $0.count != $1.count { return $0.count > $1.count }
            if $0.kind.index != $1.kind.index { return $0.kind.index < $1.kind.index }
            if $0.label.name != $1.label.name { return $0.label.name < $1.label.name }
            return $0.stack < $1.stack
        }
        return LedgerStatistics(kinds: kinds, sites: sites)
    }
}
