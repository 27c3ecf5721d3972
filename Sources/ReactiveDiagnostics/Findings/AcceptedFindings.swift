public import Foundation

/// The findings a team has accepted: the fingerprints of a baseline written by
/// `reactive-diag baseline`, known to the test process.
///
/// A team that turns ReactiveDiagnostics on in a suite full of old leaks baselines them, and
/// only new findings should fail. With the baseline given to the test process
/// (`REACTIVE_DIAGNOSTICS_BASELINE`, or ``Configuration/acceptedFindings``), a finding whose
/// fingerprint is in it is marked suppressed by `baseline` (the report says so, the gate counts
/// it as suppressed) and does not fail its test; a leak in it is not explained again (no
/// retain-path walk), and a test whose only live resources are accepted leaks does not wait the
/// settle time for them.
///
/// ```swift
/// var configuration = Configuration()
/// configuration.acceptedFindings = try AcceptedFindings(
///     contentsOf: URL(fileURLWithPath: "reactive-diagnostics-baseline.json"))
/// ```
public struct AcceptedFindings: Sendable, Equatable {
    /// The accepted fingerprints.
    public var fingerprints: Set<String>
    /// Where they were read from, for messages.
    public var source: String?

    /// No accepted finding.
    public init(fingerprints: Set<String> = [], source: String? = nil) {
        self.fingerprints = fingerprints
        self.source = source
    }

    /// Reads a baseline file (`{"entries":[{"fingerprint":"…"},…],…}`, as `reactive-diag
    /// baseline` writes it).
    ///
    /// - Throws: ``ConfigurationError`` naming the file when it cannot be read or is not a
    ///   baseline.
    public init(contentsOf url: URL) throws(ConfigurationError) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ConfigurationError("cannot read baseline \(url.path): \(error.localizedDescription)")
        }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let entries = object["entries"] as? [[String: Any]]
        else {
            throw ConfigurationError(
                "\(url.path) is not a baseline (a JSON object with \"entries\", as `reactive-diag baseline` writes)")
        }
        var fingerprints: Set<String> = []
        for (index, entry) in entries.enumerated() {
            guard let fingerprint = entry["fingerprint"] as? String, !fingerprint.isEmpty else {
                throw ConfigurationError("\(url.path): entry \(index + 1) has no \"fingerprint\"")
            }
            fingerprints.insert(fingerprint)
        }
        self.init(fingerprints: fingerprints, source: url.path)
    }

    /// Whether no finding is accepted.
    public var isEmpty: Bool {
        fingerprints.isEmpty
    }

    /// Whether any of `fingerprints` is accepted.
    public func accepts(_ fingerprints: some Sequence<String>) -> Bool {
        fingerprints.contains(where: self.fingerprints.contains)
    }

    /// The suppression a finding accepted by the baseline carries (`suppressedBy`).
    public static let suppressionReason = "baseline"
}
