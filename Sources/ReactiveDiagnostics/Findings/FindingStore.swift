import _ReactiveDiagnosticsSupport

/// Observes findings as they are recorded (the crash journal is one).
///
/// Observers are called after the store's lock is released, on the thread that made the
/// finding; they must be quick and must not record findings themselves.
///
/// ```swift
/// final class FindingCounter: FindingObserver {
///     let count = Mutex(0)
///     func didRecord(_ finding: Finding) { count.withLock { $0 += 1 } }
/// }
/// engine.addFindingObserver(FindingCounter())
/// ```
public protocol FindingObserver: AnyObject, Sendable {
    /// A finding was recorded.
    func didRecord(_ finding: Finding)
    /// A finding gained a related stack or thread after it was recorded.
    func didUpdate(_ finding: Finding)
}

extension FindingObserver {
    /// Does nothing: an observer that only counts or forwards new findings need not implement it.
    public func didUpdate(_ finding: Finding) {}
}

/// The append-only list of findings of one engine.
final class FindingStore: Sendable {
    private struct State {
        var findings: [Finding] = []
        var dropped = 0
        var observers: [any FindingObserver] = []
    }

    private let state = LockedValue(State())
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Appends a finding built from its id; returns it, or `nil` when over capacity.
    func append(_ make: (Int) -> Finding) -> Finding? {
        let (finding, observers): (Finding?, [any FindingObserver]) = state.withLock { state in
            guard state.findings.count < capacity else {
                state.dropped += 1
                return (nil, [])
            }
            let finding = make(state.findings.count + 1)
            state.findings.append(finding)
            return (finding, state.observers)
        }
        if let finding {
            for observer in observers {
                observer.didRecord(finding)
            }
        }
        return finding
    }

    /// Updates a finding in place (related stack, suppression, policy).
    func update(_ id: Int, _ change: (inout Finding) -> Void) {
        let (finding, observers): (Finding?, [any FindingObserver]) = state.withLock { state in
            let index = id - 1
            guard index >= 0, index < state.findings.count else { return (nil, []) }
            change(&state.findings[index])
            return (state.findings[index], state.observers)
        }
        if let finding {
            for observer in observers {
                observer.didUpdate(finding)
            }
        }
    }

    func all() -> [Finding] {
        state.withLock { $0.findings }
    }

    /// Findings recorded after the first `count` (for serial test runners).
    func after(_ count: Int) -> [Finding] {
        state.withLock { state in
            count < state.findings.count ? Array(state.findings[count...]) : []
        }
    }

    func finding(_ id: Int) -> Finding? {
        state.withLock { state in
            id >= 1 && id <= state.findings.count ? state.findings[id - 1] : nil
        }
    }

    var count: Int {
        state.withLock { $0.findings.count }
    }

    var dropped: Int {
        state.withLock { $0.dropped }
    }

    func addObserver(_ observer: any FindingObserver) {
        state.withLock { $0.observers.append(observer) }
    }

    func removeObserver(_ observer: any FindingObserver) {
        state.withLock { $0.observers.removeAll { $0 === observer } }
    }

    func removeAll() {
        state.withLock { state in
            state.findings.removeAll()
            state.dropped = 0
        }
    }
}
