@_spi(Integration) import ReactiveDiagnostics
import CombineDiagnostics
import Dispatch
import Foundation
import OpenCombineShim
import Testing

extension CombineAdapterTests {
    /// Correct code produces no finding, and nothing stays alive once it is done.
    @Suite struct NoFalseAlarms {
        @Test func thereAreAtLeastThirtyCases() {
            #expect(OperatorCase.all.count >= 30)
        }

        @Test(arguments: OperatorCase.all)
        func underGlobalInstrumentation(_ operatorCase: OperatorCase) {
            let engine = makeEngine()
            instrumented(engine) { instrumentation in
                let outcome = runTest(engine, operatorCase.name) { operatorCase.run() }
                #expect(instrumentation.statistics.subscriptionsTracked > 0)
                #expect(outcome.findings.isEmpty, "\(outcome.findings.map { engine.describe($0) })")
                #expect(engine.findings().isEmpty, "\(engine.findings().map { engine.describe($0) })")
                expectNoLiveSubscriptions(engine)
            }
        }

        @Test(arguments: DiagnosedPipelineCase.all, [false, true])
        func withADiagnosedStageEverywhere(_ pipeline: DiagnosedPipelineCase, alsoInstrumented: Bool) {
            let engine = makeEngine()
            let instrumentation = alsoInstrumented ? CombineInstrumentation.start(engine: engine) : nil
            defer { instrumentation?.stop() }
            let outcome = runTest(engine, pipeline.name) { pipeline.run(engine) }
            #expect(engine.ledger.registeredCount(of: .subscription) > 0)
            #expect(outcome.findings.isEmpty, "\(outcome.findings.map { engine.describe($0) })")
            #expect(engine.findings().isEmpty, "\(engine.findings().map { engine.describe($0) })")
            expectNoLiveSubscriptions(engine)
        }
    }
}
