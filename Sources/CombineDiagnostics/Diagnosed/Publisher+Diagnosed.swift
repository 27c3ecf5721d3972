public import OpenCombineShim
import ReactiveDiagnostics

extension Publisher {
    /// Checks this stream and tracks its subscriptions: a transparent stage (see
    /// ``OpenCombine/Publishers/Diagnosed``) that forwards every signal unchanged.
    ///
    /// ```swift
    /// api.profile(id)
    ///     .diagnosed("profile", contract: .single)     // exactly one value, then completion
    ///     .sink(receiveCompletion: { _ in }, receiveValue: { profile = $0 })
    ///     .store(in: &cancellables)
    /// ```
    ///
    /// - Parameters:
    ///   - label: The name findings and the report show; `nil` uses `File.swift:line`.
    ///   - contract: What the stream promises (value count, termination, delivery thread).
    ///   - engine: Where findings go; tests of the library use private engines.
    ///   - fileID: The file that calls this (filled in by the compiler); names the stream
    ///     when `label` is `nil`.
    ///   - line: The line that calls this (filled in by the compiler).
    @inlinable
    public func diagnosed(
        _ label: String? = nil, contract: StreamContract? = nil, engine: DiagnosticsEngine = .shared,
        fileID: StaticString = #fileID, line: UInt = #line
    ) -> Publishers.Diagnosed<Self> {
        Publishers.Diagnosed(
            upstream: self, label: DiagnosticLabel(label ?? Self.defaultLabel(fileID: fileID, line: line)),
            contract: contract, engine: engine)
    }

    /// Checks that values and completion arrive where `expectation` says, for example on
    /// the main queue for anything that updates the UI.
    ///
    /// ```swift
    /// viewModel.$title
    ///     .expectDelivery(on: .mainQueue, "title label")
    ///     .sink { label.text = $0 }
    ///     .store(in: &cancellables)
    /// ```
    ///
    /// A value delivered elsewhere is a `FindingKind.wrongThread` finding naming where the
    /// subscription was made. Other rules of `contract` still apply.
    ///
    /// - Parameters:
    ///   - expectation: Where values and completion must arrive, for example `.mainQueue`.
    ///   - label: The name findings and the report show; `nil` uses `File.swift:line`.
    ///   - contract: The stream's other promises (value count, termination).
    ///   - engine: Where findings go.
    ///   - fileID: The file that calls this (filled in by the compiler); names the stream
    ///     when `label` is `nil`.
    ///   - line: The line that calls this (filled in by the compiler).
    public func expectDelivery(
        on expectation: ThreadExpectation, _ label: String? = nil, contract: StreamContract = .any,
        engine: DiagnosticsEngine = .shared, fileID: StaticString = #fileID, line: UInt = #line
    ) -> Publishers.Diagnosed<Self> {
        diagnosed(label, contract: contract.delivered(on: expectation), engine: engine, fileID: fileID, line: line)
    }

    @usableFromInline
    static func defaultLabel(fileID: StaticString, line: UInt) -> String {
        let file = "\(fileID)".split(separator: "/").last.map(String.init) ?? "\(fileID)"
        return "\(file):\(line)"
    }
}
