import ReactiveDiagnostics
import RxDiagnostics
@preconcurrency import RxSwift
import Testing

extension RxIntegrationTests {
    /// `RxDiagnosticsHooks`: unhandled errors of closure-based subscriptions, through RxSwift's `Hooks`.
    @Suite("RxDiagnosticsHooks")
    struct RxDiagnosticsHooksTests {
        @Test func anUnhandledErrorInAClosureSubscribeIsAFindingAtTheSubscribeCall() throws {
            let engine = makeEngine()
            RxDiagnosticsHooks.install(engine: engine)
            defer { RxDiagnosticsHooks.uninstall() }
            let refresh = PublishSubject<[String]>()
            var subscription: (any Disposable)?
            let outcome = runTest(engine) {
                // A plain RxSwift subscription, not diagnosed: no onError.
                subscription = refresh.subscribe(onNext: { _ in })
                refresh.onError(TestFailure(reason: "HTTP 503"))
            }
            subscription?.dispose()
            let finding = try #require(expectFinding(engine, outcome, .unhandledError, label: nil))
            #expect(finding.details["error"] == "TestFailure(HTTP 503)")
            expectStack(engine, finding.eventStack, contains: "PublishSubject")
        }

        @Test func forwardingHandsThePreviousHandlerTheSubscriptionFrames() {
            let engine = makeEngine()
            let previousHandler = Hooks.defaultErrorHandler
            var forwarded: [(frames: [String], error: String)] = []
            Hooks.defaultErrorHandler = { frames, error in forwarded.append((frames, "\(error)")) }
            RxDiagnosticsHooks.install(engine: engine, forwardingToPreviousHandler: true)
            defer {
                RxDiagnosticsHooks.uninstall()
                Hooks.defaultErrorHandler = previousHandler
            }
            let outcome = runTest(engine) {
                _ = Observable<Int>.error(TestFailure(reason: "offline")).subscribe(onNext: { _ in })
            }
            #expect(outcome.findings.map(\.kind) == [.unhandledError])
            #expect(forwarded.count == 1)
            let frames = forwarded.first?.frames ?? []
            #expect(
                frames.contains { $0.contains("forwardingHandsThePreviousHandlerTheSubscriptionFrames") },
                "RxSwift's handler now points at the subscribe call: \(frames)")
            #expect(
                !frames.contains { $0.hasPrefix("ReactiveDiagnostics subscription stack") }, "the marker is ours only")
            #expect(forwarded.first?.error == "TestFailure(offline)")
        }

        @Test func uninstallRestoresRxSwiftsHooks() {
            let engine = makeEngine()
            let recordedBefore = Hooks.recordCallStackOnError
            var calls = 0
            let previousHandler = Hooks.defaultErrorHandler
            Hooks.defaultErrorHandler = { _, _ in calls += 1 }
            defer { Hooks.defaultErrorHandler = previousHandler }
            RxDiagnosticsHooks.install(engine: engine)
            #expect(RxDiagnosticsHooks.isInstalled && Hooks.recordCallStackOnError)
            RxDiagnosticsHooks.uninstall()
            #expect(!RxDiagnosticsHooks.isInstalled)
            #expect(Hooks.recordCallStackOnError == recordedBefore)
            let outcome = runTest(engine) {
                _ = Observable<Int>.error(TestFailure(reason: "after uninstall")).subscribe(onNext: { _ in })
            }
            #expect(calls == 1, "the handler installed before is back")
            #expect(outcome.findings.isEmpty)
        }

        @Test func aSingleWithoutErrorHandlerIsReportedWithoutASubscriptionStack() throws {
            let engine = makeEngine()
            RxDiagnosticsHooks.install(engine: engine)
            defer { RxDiagnosticsHooks.uninstall() }
            let outcome = runTest(engine) {
                _ = Single<Int>.error(TestFailure(reason: "gone")).subscribe(onSuccess: { _ in })
            }
            let finding = try #require(outcome.findings.first)
            #expect(outcome.findings.count == 1 && finding.kind == .unhandledError)
            #expect(finding.test == outcome.test)
            #expect(!finding.allocationStack.isCaptured, "Single captures Thread.callStackSymbols itself")
            expectStack(engine, finding.eventStack, contains: #function)
        }
    }
}
