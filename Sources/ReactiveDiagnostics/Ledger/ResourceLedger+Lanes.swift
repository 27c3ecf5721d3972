import _ReactiveDiagnosticsSupport
/// Resources a ledger counts but does not hold in its slots, kept where they are made (the
/// scheduled actions and timers of an engine's scheduler probes, in the lanes of the threads
/// that scheduled them: a scheduling thread makes them too often for a shard's lock and slot).
/// Whoever keeps them counts them: the ledger sums the counts of its sources, and its queries
/// ask them for the live ones. The ledger names neither lanes nor probes.
protocol ExternalResourceSource: AnyObject, Sendable {
    /// Registered, ended and the most alive at once, of `kind`.
    func counts(of kind: ResourceKind) -> LaneCounts

    /// Whether a resource of the source may be alive: `false` only when none is (read so that
    /// one ended while reading is never taken for a live one's end).
    func mayHaveLive() -> Bool
}

/// What keeps resources of a ledger outside its slots, asked for the live ones by its queries.
protocol ExternalLiveResources: Sendable {
    /// Appends the live resources the ledger numbered `ledger` counts and `include` accepts
    /// (evaluated under the keeper's locks: keep it pure).
    func collectLive(ledger: UInt32, where include: (ResourceLedger.Slot) -> Bool, into result: inout [LiveResource])
}

extension ResourceLedger {
    /// Adds the counts of `source` to this ledger's (a scheduler label's, once, when first used).
    ///
    /// ```swift
    /// ledger.countExternal(statistics.counts)   // registered, ended and peak counts from now on
    /// ```
    func countExternal(_ source: any ExternalResourceSource) {
        laneSources.withLock { $0.append(source) }
    }

    /// Registered, ended and peak counts of `kind` over every probe counting for this ledger.
    /// The peak is the sum of the probes' peaks: never below the true one.
    func laneCounts(of kind: ResourceKind) -> LaneCounts {
        guard kind == .scheduledAction || kind == .timer else { return LaneCounts() }
        return laneSources.withLock { sources in
            sources.reduce(into: LaneCounts()) { total, source in
                let counts = source.counts(of: kind)
                total.registered += counts.registered
                total.ended += counts.ended
                total.peak += counts.peak
            }
        }
    }

    /// The token a lane's resource is listed with: it names the resource in a checkpoint's
    /// results and refers to no slot (so ``unregister(_:)`` and ``isLive(_:)`` ignore it).
    static func laneToken(lane: Int, index: Int, generation: UInt64) -> ResourceToken {
        ResourceToken(shard: laneShard, index: lane << 28 | index, generation: UInt16(truncatingIfNeeded: generation))
    }

    /// The shard number of lane tokens: beyond every real shard.
    static let laneShard = 0xff
}

/// Registered, ended and peak counts of one kind of resource kept in lanes.
struct LaneCounts: Sendable {
    var registered = 0
    var ended = 0
    var peak = 0

    /// Alive now.
    var live: Int { max(registered - ended, 0) }
}
