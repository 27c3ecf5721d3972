import ReactiveDiagnostics
import _ReactiveDiagnosticsSupport

/// The user's `onTermination` of a diagnosed continuation: the wrapped continuation's own
/// handler is the library's (it tells the producer the consumer went away), which then calls
/// this one, outside any lock.
final class TerminationHandler<Reason>: Sendable {
    typealias Handler = @Sendable (Reason) -> Void

    private let handler = LockedValue<Handler?>(nil)

    var value: Handler? {
        get { handler.withLock { $0 } }
        set { handler.withLock { $0 = newValue } }
    }

    /// Calls the user's handler, if any, with no lock held.
    func call(_ reason: Reason) {
        let current = handler.withLock { $0 }
        current?(reason)
    }
}

/// Carries a value that is not `Sendable` into the closure of a diagnosed stream, as the stream
/// itself does: an `AsyncStream` hands its elements from the producer's task to the consumer's.
struct UncheckedSendable<Value>: @unchecked Sendable {
    // Unchecked: only streams are carried, whose storage is thread-safe.
    let value: Value
}

/// The label of a diagnosed stream or sequence: the caller's, else `File.swift:line`.
func streamLabel(_ label: String?, fileID: StaticString, line: UInt) -> DiagnosticLabel {
    if let label {
        return DiagnosticLabel(label)
    }
    let file = "\(fileID)".split(separator: "/").last.map(String.init) ?? "\(fileID)"
    return DiagnosticLabel("\(file):\(line)")
}

/// `contract` with `expectation` as its delivery rule, when one is given.
func merged(_ contract: StreamContract?, _ expectation: ThreadExpectation?) -> StreamContract? {
    guard let expectation else { return contract }
    return (contract ?? .any).delivered(on: expectation)
}
