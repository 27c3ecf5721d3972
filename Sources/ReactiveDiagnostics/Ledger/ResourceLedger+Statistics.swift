/// Totals and live resources of a ledger at one moment.
package struct LedgerStatistics: Sendable, Hashable {
    /// Per kind: registered, peak and live counts.
    package struct KindStatistics: Sendable, Hashable {
        /// The kind.
        package var kind: ResourceKind
        /// Registered over the ledger's life.
        package var registered: Int
        /// The most alive at once.
        package var peak: Int
        /// Alive now.
        package var live: Int
    }

    /// Live resources sharing kind, label and allocation site.
    package struct Site: Sendable, Hashable {
        /// The kind.
        package var kind: ResourceKind
        /// The label.
        package var label: DiagnosticLabel
        /// The allocation stack.
        package var stack: StackID
        /// How many are alive.
        package var count: Int
        /// The tests that allocated them.
        package var tests: Set<TestIdentity>
    }

    /// Kinds that were ever used, in kind order.
    package var kinds: [KindStatistics]
    /// Live sites, most resources first.
    package var sites: [Site]

    /// Live resources by label, most first.
    package var liveByLabel: [(label: DiagnosticLabel, count: Int)] {
        var counts: [DiagnosticLabel: Int] = [:]
        for site in sites {
            counts[site.label, default: 0] += site.count
        }
        return counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key.name < $1.key.name }
            .map { (label: $0.key, count: $0.value) }
    }

    package static func == (lhs: LedgerStatistics, rhs: LedgerStatistics) -> Bool {
        lhs.kinds == rhs.kinds && lhs.sites == rhs.sites
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(kinds)
        hasher.combine(sites)
    }
}

extension ResourceLedger {
    /// Counts and live sites now.
    ///
    /// - Complexity: O(slots): scans every shard once.
    package func statistics() -> LedgerStatistics {
        let names = ResourceKind.allNames
        var kinds: [LedgerStatistics.KindStatistics] = []
        for index in 0..<names.count {
            let kind = ResourceKind(index: UInt8(index))
            let registered = registeredCount(of: kind)
            guard registered > 0 else { continue }
            kinds.append(
                .init(kind: kind, registered: registered, peak: peakCount(of: kind), live: liveCount(of: kind)))
        }
        struct Key: Hashable {
            var kind: ResourceKind
            var label: DiagnosticLabel
            var stack: StackID
        }
        var grouped: [Key: LedgerStatistics.Site] = [:]
        for resource in liveResources() {
            let key = Key(kind: resource.kind, label: resource.label, stack: resource.stack)
            grouped[
                key,
                default: .init(kind: resource.kind, label: resource.label, stack: resource.stack, count: 0, tests: [])
            ]
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
