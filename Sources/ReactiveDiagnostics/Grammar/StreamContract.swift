/// What a stream promises, checked at run time: how many values, whether and how it ends,
/// and where values arrive.
///
/// ```swift
/// // A network request: exactly one value, then completion; failure allowed; UI-bound.
/// let request = StreamContract(values: 1...1, termination: .required, delivery: .mainQueue)
///
/// // A long-lived state stream: must never complete or fail by itself.
/// let state = StreamContract(termination: .forbidden)
/// ```
public struct StreamContract: Sendable, CustomStringConvertible {
    /// Whether the stream must, may or must not terminate (finish or fail) by itself.
    public enum Termination: String, Sendable, Hashable {
        /// It must terminate; still running at its test's end is a violation.
        case required
        /// It may or may not terminate.
        case optional
        /// It must never finish or fail (cancellation is fine).
        case forbidden
    }

    /// The allowed number of values, or `nil` for any number.
    public var values: ClosedRange<Int>?
    /// Whether it must, may or must not terminate.
    public var termination: Termination
    /// Whether failing is allowed.
    public var allowsFailure: Bool
    /// Where values and completion must arrive, or `nil` for anywhere.
    public var delivery: ThreadExpectation?

    /// Declares a contract; the defaults allow anything.
    public init(
        values: ClosedRange<Int>? = nil, termination: Termination = .optional, allowsFailure: Bool = true,
        delivery: ThreadExpectation? = nil
    ) {
        self.values = values
        self.termination = termination
        self.allowsFailure = allowsFailure
        self.delivery = delivery
    }

    /// No promises.
    public static let any = StreamContract()

    /// One value then completion, like a request or a `Future`.
    public static let single = StreamContract(values: 1...1, termination: .required)

    /// Completes (or fails) without values.
    public static let completable = StreamContract(values: 0...0, termination: .required)

    /// Never ends by itself (state streams, UI bindings); cancel it instead.
    public static let endless = StreamContract(termination: .forbidden)

    /// Returns a copy whose values must arrive on `expectation`.
    public func delivered(on expectation: ThreadExpectation) -> StreamContract {
        var copy = self
        copy.delivery = expectation
        return copy
    }

    /// The contract in words, as findings quote it: `exactly 1 value(s), must terminate,
    /// delivered on the main queue`, or `any` for a contract that promises nothing.
    public var description: String {
        var parts: [String] = []
        if let values {
            parts.append(
                values.lowerBound == values.upperBound
                    ? "exactly \(values.lowerBound) value(s)" : "\(values.lowerBound)...\(values.upperBound) values")
        }
        switch termination {
        case .required: parts.append("must terminate")
        case .forbidden: parts.append("must not terminate")
        case .optional: break
        }
        if !allowsFailure { parts.append("must not fail") }
        if let delivery { parts.append("delivered on the \(delivery)") }
        return parts.isEmpty ? "any" : parts.joined(separator: ", ")
    }
}
