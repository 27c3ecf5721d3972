import _ReactiveDiagnosticsSupport
/// Resources kept in threads' lanes instead of the ledger's slots: the scheduled actions and
/// timers of an engine's ``SchedulerProbe``s, which a scheduling thread makes too often for a
/// shard's lock and slot (see `ActionLane`). Their probes count them; the ledger sums the
/// counts of the probes that count for it, and its queries read the lanes.
extension ResourceLedger {
    /// Adds the counts of `source` to this ledger's (a probe of its engine, once, when made).
    ///
    /// ```swift
    /// ledger.countLanes(of: counts)     // the probe's registered, ended and peak counts from now on
    /// ```
    func countLanes(of source: SchedulerCounts) {
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
