@_spi(Testing) import ReactiveDiagnostics
import RxDiagnostics
@preconcurrency import RxSwift
import Testing

extension RxIntegrationTests {
    /// Why a leaked RxSwift subscription is still alive, with real RxSwift code: the retain
    /// cycle through the owner's `DisposeBag`, with the closure's line and capture.
    @Suite("Retain paths")
    struct RetainPathTests {
        @Test func aStrongSelfSubscriptionInTheOwnersBagIsACycle() throws {
            let engine = makeEngine(settle: .milliseconds(300))
            let refreshes = PublishSubject<[String]>()
            weak var leaked: DiagnosedStrongSelfViewModel?
            let outcome = runTest(engine) {
                let model = DiagnosedStrongSelfViewModel(refreshes: refreshes, engine: engine)
                leaked = model
            }
            let finding = try #require(
                expectFinding(
                    engine, outcome, .leakedSubscription, label: "headlines",
                    stackContains: "DiagnosedStrongSelfViewModel.init"))
            let path = try #require(finding.retainPath, "\(engine.describe(finding))")
            expectCycle(
                path, owner: "DiagnosedStrongSelfViewModel", field: "disposeBag",
                closureLine: DiagnosedStrongSelfViewModel.closureLine)
            #expect(engine.describe(finding).contains("retained by a cycle:"))
            refreshes.onCompleted()
            #expect(leaked == nil)
        }

        @Test func subscribeDiagnosedWithStrongSelfIsACycle() throws {
            let engine = makeEngine(settle: .milliseconds(300))
            let refreshes = PublishSubject<[String]>()
            weak var leaked: SubscribeDiagnosedViewModel?
            let outcome = runTest(engine) {
                let model = SubscribeDiagnosedViewModel(refreshes: refreshes, engine: engine)
                leaked = model
            }
            let finding = try #require(
                expectFinding(
                    engine, outcome, .leakedSubscription, label: "headlines",
                    stackContains: "SubscribeDiagnosedViewModel.init"))
            let path = try #require(finding.retainPath)
            expectCycle(
                path, owner: "SubscribeDiagnosedViewModel", field: "disposeBag",
                closureLine: SubscribeDiagnosedViewModel.closureLine)
            refreshes.onCompleted()
            _ = leaked
        }

        @Test func aHookedSubscriptionIsExplainedFromItsObserversClosure() throws {
            let engine = makeEngine(settle: .milliseconds(300))
            let refreshes = PublishSubject<[String]>()
            weak var leaked: HookedStrongSelfViewModel?
            RxDiagnosticsHooks.install(engine: engine)
            let outcome = runTest(engine) {
                let model = HookedStrongSelfViewModel(refreshes: refreshes)
                leaked = model
            }
            RxDiagnosticsHooks.uninstall()
            let finding = try #require(
                expectFinding(
                    engine, outcome, .leakedSubscription, label: "subscribe(onNext:)",
                    stackContains: "HookedStrongSelfViewModel.init"))
            let path = try #require(finding.retainPath)
            expectCycle(
                path, owner: "HookedStrongSelfViewModel", field: "disposeBag",
                closureLine: HookedStrongSelfViewModel.closureLine)
            refreshes.onCompleted()
            #expect(leaked == nil)
        }

        @Test func aSubscriptionHeldByItsSubjectIsNotACycle() throws {
            // RxSwift's disposable for a subject subscription holds the subject weakly: the
            // bag closes no cycle. The subject, held by the test, keeps the observer alive.
            let engine = makeEngine(settle: .milliseconds(300))
            let refreshes = PublishSubject<[String]>()
            RxDiagnosticsHooks.install(engine: engine)
            let outcome = runTest(engine) {
                _ = SubjectHeldViewModel(refreshes: refreshes)
            }
            RxDiagnosticsHooks.uninstall()
            let finding = try #require(
                expectFinding(
                    engine, outcome, .leakedSubscription, label: "subscribe(onNext:)",
                    stackContains: "SubjectHeldViewModel.init"))
            let path = try #require(finding.retainPath)
            let text = path.textLines().joined(separator: "\n")
            #expect(path.verdict == .notACycle, "\(text)")
            #expect(path.holder == nil, "\(text)")
            #expect(path.holds.contains { $0.type == "SubjectHeldViewModel" && $0.strength == .strong }, "\(text)")
            refreshes.onCompleted()
        }

        @Test func aSubscriptionInAStaticBagNamesTheStatic() throws {
            // No `.diagnosed()`: found by the hooks, whose call-stack array (a recycled one)
            // leads to the subscription's observer; the holder scan walks up
            // from there to the static bag.
            let engine = makeEngine(settle: .milliseconds(300))
            let refreshes = PublishSubject<[String]>()
            RxDiagnosticsHooks.install(engine: engine)
            let outcome = runTest(engine) {
                // Subscriptions that end, swept: their arrays go to the shard's pool, and the
                // leaking subscription below is handed a recycled one.
                for _ in 0..<8 {
                    refreshes.subscribe(onNext: { _ in }).dispose()
                }
                #expect(engine.sweepTiedResources() > 0)
                _ = AppScopedViewModel(refreshes: refreshes)
            }
            RxDiagnosticsHooks.uninstall()
            let finding = try #require(
                expectFinding(
                    engine, outcome, .leakedSubscription, label: "subscribe(onNext:)",
                    stackContains: "AppScopedViewModel.init"))
            let path = try #require(finding.retainPath)
            let text = path.textLines().joined(separator: "\n")
            #expect(path.verdict == .notACycle, "\(text)")
            #expect(path.cycle.isEmpty, "\(text)")
            #expect(path.holder?.hasSuffix("AppLifetime.disposeBag") == true, "\(text)\n\(path.notes)")
            #expect(path.heldBy.first?.type == "DisposeBag", "\(text)")
            #expect(path.heldBy.last?.isSubscription == true, "\(text)\n\(path.heldBy)")
            #expect(path.holds.contains { $0.type.contains("AppScopedViewModel") && $0.strength == .weak }, "\(text)")
            #expect(text.contains("fix: cancel it, or remove it from disposeBag"), "\(text)")
            #expect(engine.describe(finding).contains("not a retain cycle: the global variable"))
            AppLifetime.disposeBag = DisposeBag()
        }

        @Test func aViewModelOwningItsSubjectIsACycleThroughTheSubject() throws {
            // The subject holds its observers: the view model that owns it holds the
            // subscription through it too (the shortest cycle), whatever its bag does.
            let engine = makeEngine(settle: .milliseconds(300))
            weak var leaked: HeadlinesViewModel?
            RxDiagnosticsHooks.install(engine: engine)
            let outcome = runTest(engine) {
                let model = HeadlinesViewModel()
                leaked = model
            }
            RxDiagnosticsHooks.uninstall()
            let finding = try #require(
                expectFinding(
                    engine, outcome, .leakedSubscription, label: "subscribe(onNext:)",
                    stackContains: "HeadlinesViewModel.init"))
            let path = try #require(finding.retainPath)
            let text = path.textLines().joined(separator: "\n")
            #expect(path.verdict == .cycle, "\(text)")
            #expect(path.cycle.first?.type == "HeadlinesViewModel", "\(text)")
            #expect(path.cycle.first?.links.first?.name == "refreshes", "\(text)")
            #expect(text.contains("captures `self` strongly"), "\(text)")
            leaked?.stop()
            #expect(leaked == nil)
        }

        @Test func aWeakSelfSubscriptionLeavesNothingBehind() {
            let engine = makeEngine()
            let refreshes = PublishSubject<[String]>()
            let outcome = runTest(engine) {
                let model = DiagnosedWeakSelfViewModel(refreshes: refreshes, engine: engine)
                refreshes.onNext(["a"])
                #expect(model.headlines == ["a"])
            }
            #expect(outcome.findings.isEmpty, "\(describe(engine, outcome.findings))")
        }
    }
}

/// Asserts a retain cycle owned by `owner` through its property `field`, with the user's
/// closure at `closureLine` capturing `self` strongly.
func expectCycle(
    _ path: ReportRetainPath, owner: String, field: String, closureLine: Int,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let text = path.textLines().joined(separator: "\n")
    #expect(path.verdict == .cycle, "\(text)\n\(path.notes)", sourceLocation: sourceLocation)
    #expect(path.cycle.first?.type == owner, "\(text)", sourceLocation: sourceLocation)
    #expect(path.cycle.first?.links.first?.name == field, "\(text)", sourceLocation: sourceLocation)
    let closures = path.cycle.flatMap(\.links).compactMap(\.closure).filter { $0.category == .user }
    #expect(
        closures.contains { $0.line == closureLine && $0.file?.hasSuffix("RetainPathFixtures.swift") == true },
        "no closure at line \(closureLine): \(closures)", sourceLocation: sourceLocation)
    #expect(text.contains("captures `self` strongly"), "\(text)", sourceLocation: sourceLocation)
    #expect(text.contains("→ \(owner) (the same object)"), "\(text)", sourceLocation: sourceLocation)
}
