public import OpenCombineShim
import ReactiveDiagnostics

extension Scheduler {
    /// Wraps this scheduler in a ``DiagnosticScheduler``.
    ///
    /// ```swift
    /// let ui = DispatchQueue.main.diagnosed("ui", expecting: .mainQueue)
    /// publisher.receive(on: ui).sink { label.text = $0 }.store(in: &cancellables)
    /// ```
    public func diagnosed(
        _ label: String, expecting expectation: ThreadExpectation? = nil, longActionThreshold: Duration? = nil,
        engine: DiagnosticsEngine = .shared
    ) -> DiagnosticScheduler<Self> {
        DiagnosticScheduler(
            self, label: label, expecting: expectation, longActionThreshold: longActionThreshold, engine: engine)
    }
}
