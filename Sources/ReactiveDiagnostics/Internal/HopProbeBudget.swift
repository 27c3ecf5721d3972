import Synchronization

/// An engine's thread-hop probe settings in atomics (read on the hot path) and what is left of
/// its budget (see ``ThreadHopProbe``). A ``DiagnosticsRecorder`` hands it to its streams;
/// only this module reads or changes it.
///
/// It has no public members: only a ``DiagnosticsEngine`` makes one, from its
/// ``Configuration/threadHopProbe`` settings. A recorder of your own answers `nil` (the
/// protocol's default), and its streams never probe:
///
/// ```swift
/// final class QuietRecorder: DiagnosticsRecorder, @unchecked Sendable {
///     // …the required members…
///     var hopProbeBudget: HopProbeBudget? { nil }   // or DiagnosticsEngine.shared.hopProbeBudget
/// }
/// ```
@usableFromInline package final class HopProbeBudget: Sendable {
    private let perStream = Atomic<Int>(0)
    private let perSite = Atomic<Int>(0)
    /// First probes taken per site, by ``siteSlots`` hashed slots (sites sharing a slot share
    /// its first probes).
    private let sites = AtomicCounters(count: HopProbeBudget.siteSlots)
    static let siteSlots = 1_024
    private let every = Atomic<UInt32>(0)
    private let perStreamBudget = Atomic<UInt32>(0)
    private let firstWindow = Atomic<Int64>(0)
    private let maximumWindow = Atomic<Int64>(0)
    private let remaining = Atomic<Int64>(0)
    private let probes = Atomic<Int>(0)
    private let waited = Atomic<Int64>(0)

    init(_ settings: ThreadHopProbe) {
        update(settings)
    }

    /// Takes new settings; the budget starts again from its full amount.
    func update(_ settings: ThreadHopProbe) {
        perStream.store(max(0, min(settings.probesPerStream, Int(UInt8.max))), ordering: .relaxed)
        perSite.store(max(0, settings.probesPerSite), ordering: .relaxed)
        for slot in 0..<Self.siteSlots {
            sites.store(slot, 0)
        }
        every.store(UInt32(clamping: max(0, settings.thereafterEvery)), ordering: .relaxed)
        perStreamBudget.store(UInt32(clamping: settings.budgetPerStream.clampedNanoseconds / 1_000), ordering: .relaxed)
        firstWindow.store(settings.firstWindow.clampedNanoseconds, ordering: .relaxed)
        maximumWindow.store(settings.maximumWindow.clampedNanoseconds, ordering: .relaxed)
        remaining.store(settings.budget.clampedNanoseconds, ordering: .relaxed)
    }

    /// First probes a new stream may make.
    var probesPerStream: UInt8 {
        UInt8(perStream.load(ordering: .relaxed))
    }

    /// Takes one of the first probes of the streams subscribed at `site` (a hash of their
    /// allocation stack and label); `false` once the site's are spent, and the stream then only
    /// probes periodically. Always `true` when probes are not counted per site.
    func claimFirstProbe(site: Int) -> Bool {
        let limit = perSite.load(ordering: .relaxed)
        guard limit > 0 else { return true }
        let slot = site & (Self.siteSlots - 1)
        guard sites.load(slot) < limit else { return false }
        return sites.add(slot, 1) <= limit
    }

    /// The site of a stream subscribed at `stack` with `label`, for ``claimFirstProbe(site:)``.
    static func site(stack: StackID, label: DiagnosticLabel) -> Int {
        let mixed = UInt64(stack.rawValue) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(label.id) &* 0xC2B2_AE3D_27D4_EB4F
        return Int(truncatingIfNeeded: mixed >> 32)
    }

    /// After its first probes, a stream probes every this many thread changes (0: never).
    var thereafterEvery: UInt32 {
        every.load(ordering: .relaxed)
    }

    /// What one stream's probes may wait in all, in microseconds.
    var budgetPerStreamMicroseconds: UInt32 {
        perStreamBudget.load(ordering: .relaxed)
    }

    /// The window of a stream's probe number `index` (0 for its first), at most `limit`
    /// nanoseconds, taken from the budget:
    /// `nil` when the budget is spent. End it with ``finish(window:spent:)``.
    func take(probe index: Int, atMost limit: Int64 = .max) -> Int64? {
        let first = firstWindow.load(ordering: .relaxed)
        let maximum = maximumWindow.load(ordering: .relaxed)
        let window = min(limit, index >= 62 || first > maximum >> index ? maximum : min(first << index, maximum))
        guard window > 0 else { return nil }
        var current = remaining.load(ordering: .relaxed)
        while current > 0 {
            let granted = min(window, current)
            let (exchanged, original) = remaining.weakCompareExchange(
                expected: current, desired: current - granted, ordering: .relaxed)
            if exchanged { return granted }
            current = original
        }
        return nil
    }

    /// A probe granted `window` nanoseconds waited `spent`: counts it and returns the rest.
    func finish(window: Int64, spent: Int64) {
        let used = min(max(spent, 0), window)
        probes.add(1, ordering: .relaxed)
        waited.add(used, ordering: .relaxed)
        if window > used {
            remaining.add(window - used, ordering: .relaxed)
        }
    }

    /// Probes made and time spent so far.
    var usage: ThreadHopProbe.Usage {
        ThreadHopProbe.Usage(
            probes: probes.load(ordering: .relaxed), waited: .nanoseconds(waited.load(ordering: .relaxed)),
            remaining: .nanoseconds(max(0, remaining.load(ordering: .relaxed))))
    }
}
