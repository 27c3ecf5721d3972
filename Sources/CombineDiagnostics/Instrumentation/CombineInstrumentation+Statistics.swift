extension CombineInstrumentation {
    /// What a ``CombineInstrumentation`` counted since it started.
    ///
    /// ```swift
    /// let instrumentation = CombineInstrumentation.start(engine: engine)
    /// _ = Just(1).map { $0 + 1 }.sink { _ in }
    /// assert(instrumentation.statistics.subscriptionsTracked == 2)   // sink ← Map, Map ← Just
    /// ```
    public struct Statistics: Sendable, Hashable {
        /// Stages (subscriber, subscription pairs) tracked with a monitor.
        public var subscriptionsTracked: Int
        /// Stages left to a `.diagnosed()` stage that checks the same stream.
        public var diagnosedStagesSkipped: Int
        /// Stages still remembered (running, or finished with their objects alive).
        public var stagesRemembered: Int

        /// Creates statistics.
        public init(subscriptionsTracked: Int, diagnosedStagesSkipped: Int, stagesRemembered: Int) {
            self.subscriptionsTracked = subscriptionsTracked
            self.diagnosedStagesSkipped = diagnosedStagesSkipped
            self.stagesRemembered = stagesRemembered
        }
    }
}
