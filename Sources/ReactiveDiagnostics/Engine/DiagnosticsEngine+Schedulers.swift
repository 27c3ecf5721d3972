import _ReactiveDiagnosticsSupport

/// The engine keeps its scheduler probes' actions in the scheduling threads' lanes (see
/// `ActionLaneHost`): the probe asks it for the owner of each action, and its ledger counts
/// the lanes through the statistics of each label and reads them through `ActionLanes`.
extension DiagnosticsEngine: ActionLaneHost {
    var laneLedgerID: UInt32 {
        ledger.id
    }

    var laneOwners: LaneOwners {
        engineLaneOwners
    }

    /// The statistics the schedulers of `label` share (made, and counted by the ledger, with
    /// the first of them).
    func schedulerStatistics(label: String, expectation: String?) -> SchedulerStatistics {
        let (statistics, made) = schedulers.withLock { state -> (SchedulerStatistics, Bool) in
            if let known = state.byLabel[label] {
                return (known, false)
            }
            let made = SchedulerStatistics(label: label, expectation: expectation)
            state.byLabel[label] = made
            state.order.append(made)
            return (made, true)
        }
        if made {
            ledger.countExternal(statistics.counts)
        }
        return statistics
    }
}

extension DiagnosticsEngine {
    /// Gives back what the action lanes of quiet threads no longer need: a thread that took no
    /// action since the previous call has its lane let go of the ended actions a burst left
    /// and of the probes of dropped schedulers (see `ActionLane.reclaimQuietLanes()`). Every
    /// test's checkpoints call it, so a lane is given back by the second checkpoint after its
    /// thread went quiet.
    ///
    /// ```swift
    /// engine.reclaimQuietLanes()   // notes which lanes took actions since
    /// engine.reclaimQuietLanes()   // gives back those that took none
    /// ```
    @_spi(Integration) public func reclaimQuietLanes() {
        ActionLanes.reclaimQuiet()
    }
}

/// The engine's answer to who an action scheduled now belongs to.
final class EngineLaneOwners: LaneOwners, @unchecked Sendable {
    // Unchecked: its one reference is set once, by the engine's initializer, before any probe
    // can see this object; it points to a Sendable engine.
    /// Not retained: the engine owns this object.
    private var engine: Unmanaged<DiagnosticsEngine>?

    /// Binds it to the engine that owns it (once, in the engine's initializer).
    func attach(_ engine: DiagnosticsEngine) {
        self.engine = .passUnretained(engine)
    }

    override func owner(stack: StackID?, test: TestIdentity?) -> LaneOwner {
        engine.unsafelyUnwrapped._withUnsafeGuaranteedRef { engine in
            let owner = test.map { $0.isKnown ? $0 : engine.serialTest } ?? engine.currentTest()
            return LaneOwner(
                stack: stack ?? engine.captureAllocationStack(), test: owner, epoch: engine.ledger.epochNow)
        }
    }
}
