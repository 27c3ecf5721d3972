import _ReactiveDiagnosticsSupport

/// Strings interned to small ids, process-wide. Id 0 is reserved for "none".
final class InternTable: Sendable {
    private struct State {
        var ids: [String: UInt32] = [:]
        var names: [String] = [""]
    }

    private let state = LockedValue(State())

    func id(for name: String) -> UInt32 {
        state.withLock { state in
            if let id = state.ids[name] {
                return id
            }
            let id = UInt32(state.names.count)
            state.names.append(name)
            state.ids[name] = id
            return id
        }
    }

    func name(for id: UInt32) -> String? {
        guard id != 0 else { return nil }
        return state.withLock { state in
            Int(id) < state.names.count ? state.names[Int(id)] : nil
        }
    }

    var count: Int {
        state.withLock { $0.names.count - 1 }
    }
}
