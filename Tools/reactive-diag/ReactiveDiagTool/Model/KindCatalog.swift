import ReactiveDiagnosticsReport

/// What the tool knows about the finding kinds the engine defines: a one-line description
/// and the default severity (SARIF rules, `--fail-on` validation). Kinds it does not know
/// (adapters may add their own) still work everywhere.
///
/// ```swift
/// KindCatalog.entry(for: "leakedSubscription")?.summary
/// // "A subscription still alive at the end of its test: never completed, failed or cancelled."
/// ```
enum KindCatalog {
    /// One known kind.
    struct Entry: Equatable {
        /// The kind's stable name.
        let kind: String
        /// One line describing it.
        let summary: String
        /// The severity the engine gives it unless configured otherwise.
        let defaultSeverity: ReportSeverity
    }

    /// Every kind the engine defines, sorted by name.
    static let entries: [Entry] = [
        Entry(kind: "callbackCalledTwice", summary: "A one-shot callback was called more than once.", defaultSeverity: .error),
        Entry(kind: "callbackNeverCalled", summary: "An effect's callback was never called.", defaultSeverity: .error),
        Entry(kind: "concurrentDelivery", summary: "Two threads delivered signals to one subscriber at once (Reactive Streams 1.3).", defaultSeverity: .error),
        Entry(kind: "concurrentIteration", summary: "Two tasks iterated one single-consumer async sequence (an AsyncStream) at once.", defaultSeverity: .error),
        Entry(kind: "contractViolation", summary: "A declared stream contract was broken (value count, termination, failure).", defaultSeverity: .error),
        Entry(kind: "demandExceeded", summary: "More values arrived than were requested (Reactive Streams 1.1).", defaultSeverity: .error),
        Entry(kind: "duplicateSubscription", summary: "A subscriber received a second subscription (Reactive Streams 2.5).", defaultSeverity: .error),
        Entry(kind: "duplicateTermination", summary: "A second finished or failure event arrived.", defaultSeverity: .error),
        Entry(kind: "eventBeforeSubscription", summary: "A value or completion arrived before the subscription (Reactive Streams 1.9).", defaultSeverity: .error),
        Entry(kind: "invalidDemand", summary: "A request of zero or fewer values (Reactive Streams 3.9).", defaultSeverity: .error),
        Entry(kind: "leakedResource", summary: "A tracked resource still alive at the end of its test.", defaultSeverity: .error),
        Entry(kind: "leakedSubscription", summary: "A subscription still alive at the end of its test: never completed, failed or cancelled.", defaultSeverity: .error),
        Entry(kind: "longAction", summary: "A scheduled action ran longer than the threshold, blocking its queue.", defaultSeverity: .warning),
        Entry(kind: "observerNotRemoved", summary: "A notification observer still registered at the end of its test.", defaultSeverity: .error),
        Entry(kind: "pendingAction", summary: "Scheduled work still pending at the end of its test.", defaultSeverity: .error),
        Entry(kind: "prematureCancellation", summary: "A stream cancelled by the release of its cancellable before it produced anything.", defaultSeverity: .error),
        Entry(kind: "reentrantDelivery", summary: "A delivery started while another delivery to the same subscriber was running on the same thread.", defaultSeverity: .warning),
        Entry(kind: "requestAfterTermination", summary: "Demand was requested after the stream terminated.", defaultSeverity: .warning),
        Entry(kind: "uncancelledTimer", summary: "A repeating timer or periodic action still active at the end of its test.", defaultSeverity: .error),
        Entry(kind: "valueAfterCancel", summary: "A value arrived after cancel: legal while in flight (Reactive Streams 1.8).", defaultSeverity: .info),
        Entry(kind: "valueAfterTermination", summary: "A value arrived after the stream had finished or failed.", defaultSeverity: .error),
        Entry(kind: "wrongThread", summary: "A value, action or callback ran on a thread its expectation rules out.", defaultSeverity: .error),
    ]

    private static let byKind: [String: Entry] = Dictionary(uniqueKeysWithValues: entries.map { ($0.kind, $0) })

    /// The entry for `kind`, or `nil` for a kind the engine does not define.
    static func entry(for kind: String) -> Entry? {
        byKind[kind]
    }

    /// Whether the engine defines `kind`.
    static func isKnown(_ kind: String) -> Bool {
        byKind[kind] != nil
    }
}
