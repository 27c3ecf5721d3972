import Foundation

/// What happens when a finding is made.
///
/// ```swift
/// var configuration = Configuration()
/// configuration.policies.set(.trap, for: .concurrentDelivery)   // stop in the debugger
/// configuration.policies.set(.record, for: .error)             // report, never fail tests
/// ```
public enum FindingPolicy: String, Sendable, Hashable, CaseIterable {
    /// Drop it (counted as suppressed in the report).
    case ignore
    /// Keep it in the report; the test still passes.
    case record
    /// Keep it and fail the test it is attributed to.
    case fail
    /// Keep it, write what was found so far, then stop the process with `fatalError`.
    case trap
}

/// Which policy applies to which finding: per kind first, then per severity.
///
/// ```swift
/// var policies = PolicyTable()
/// policies.set(.fail, for: .warning)                 // every warning fails its test
/// policies.set(.ignore, for: .valueAfterCancel)      // except this kind
/// let policy = policies.policy(for: .longAction, severity: .warning)   // .fail
/// ```
public struct PolicyTable: Sendable, Hashable {
    private var byKind: [FindingKind: FindingPolicy] = [:]
    private var bySeverity: [Severity: FindingPolicy] = [.error: .fail, .warning: .record, .info: .record]

    /// Errors fail the test; warnings and information are recorded.
    public init() {}

    /// Sets the policy for one kind (overrides the severity's).
    public mutating func set(_ policy: FindingPolicy, for kind: FindingKind) {
        byKind[kind] = policy
    }

    /// Sets the policy for every kind of a severity without its own policy.
    public mutating func set(_ policy: FindingPolicy, for severity: Severity) {
        bySeverity[severity] = policy
    }

    /// The policy for a finding.
    public func policy(for kind: FindingKind, severity: Severity) -> FindingPolicy {
        byKind[kind] ?? bySeverity[severity] ?? .record
    }

    /// Parses `error=fail,warning=record,valueAfterCancel=ignore`.
    ///
    /// - Throws: ``ConfigurationError`` naming the entry that is not `name=policy`.
    public mutating func apply(_ specification: String) throws(ConfigurationError) {
        for entry in specification.split(separator: ",") {
            let parts = entry.split(separator: "=", maxSplits: 1).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard parts.count == 2, let policy = FindingPolicy(rawValue: parts[1].lowercased()) else {
                throw ConfigurationError(
                    "policy entry '\(entry)' is not NAME=POLICY with POLICY one of ignore, record, fail, trap")
            }
            if let severity = Severity(rawValue: parts[0].lowercased()) {
                set(policy, for: severity)
            } else {
                set(policy, for: FindingKind(rawValue: parts[0]))
            }
        }
    }
}
