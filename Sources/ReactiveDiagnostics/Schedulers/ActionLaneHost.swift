/// What a ``SchedulerProbe`` needs from a recorder that keeps the probe's actions in the lanes
/// of the threads that scheduled them, instead of registering each one (an engine does): the
/// owner of an action scheduled now, the ledger that counts the lanes, and the statistics the
/// schedulers of a label share. A probe whose recorder is no host registers every action
/// through ``DiagnosticsRecorder``.
///
/// The engine conforms (`DiagnosticsEngine+Schedulers.swift`); the probe knows it only as this.
protocol ActionLaneHost: AnyObject, Sendable {
    /// The number of the ledger that counts the lanes' actions (``ResourceLedger/id``).
    var laneLedgerID: UInt32 { get }

    /// Who actions scheduled now belong to. An object of its own rather than a method: the probe
    /// asks it per action from the scheduling thread, holding it unretained, where a call
    /// through the protocol would retain and release the host each time.
    var laneOwners: LaneOwners { get }

    /// The statistics the schedulers of `label` share, counted by the host's ledger.
    func schedulerStatistics(label: String, expectation: String?) -> SchedulerStatistics
}

/// Who an action scheduled now belongs to: its stack, its test and its ledger epoch.
struct LaneOwner {
    var stack: StackID
    var test: TestIdentity
    var epoch: UInt32
}

/// Tells who actions scheduled now belong to, for an ``ActionLaneHost``, which subclasses it
/// (the engine's answers from its tests, stacks and ledger). A class, not a protocol: a probe
/// keeps it unretained and calls it through its vtable, per action, with no reference counting.
class LaneOwners: @unchecked Sendable {
    // Unchecked: no stored state; subclasses are Sendable themselves.
    /// The allocation stack (captured now when `nil`), the test (resolved when `nil` or not
    /// known) and the ledger's epoch of an action scheduled now.
    func owner(stack: StackID?, test: TestIdentity?) -> LaneOwner {
        LaneOwner(stack: stack ?? .none, test: test ?? .none, epoch: 0)
    }
}

/// The scheduled actions of every thread's lane, as a ledger's queries ask for the live ones.
struct ActionLanes: ExternalLiveResources {
    func collectLive(ledger: UInt32, where include: (ResourceLedger.Slot) -> Bool, into result: inout [LiveResource]) {
        ActionLane.collectLive(ledger: ledger, where: include, into: &result)
    }

    /// Gives back what the lanes of threads that went quiet no longer need (see
    /// `ActionLane.reclaimQuietLanes()`).
    static func reclaimQuiet() {
        ActionLane.reclaimQuietLanes()
    }
}
