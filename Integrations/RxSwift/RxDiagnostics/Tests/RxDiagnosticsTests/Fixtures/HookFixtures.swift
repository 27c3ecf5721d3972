import Foundation
import ReactiveDiagnostics
import ReactiveDiagnosticsTesting
import ReactiveDiagnosticsXCTest
import RxDiagnostics
@preconcurrency import RxSwift
import Testing
import XCTest

/// A bag kept by something that outlives every test (a coordinator).
let coordinatorBag = DisposeBag()

/// The documented XCTest setup, nothing more: `DiagnosedTestCase` and one `install()`. The
/// app code (Support/AppCode.swift) is left as it is. Run by ``DocumentedSetupTests`` in a
/// child process; skipped in the normal run.
final class HookXCTestFixtures: DiagnosedTestCase {
    override class var diagnosticsEngine: DiagnosticsEngine {
        Fixture.isActive ? .shared : Fixture.quietEngine
    }

    override class func setUp() {
        super.setUp()
        if Fixture.isActive {
            RxDiagnosticsHooks.install()
        }
    }

    override func setUpWithError() throws {
        try XCTSkipUnless(Fixture.isActive, Fixture.skipReason)
    }

    func testHeadlinesViewModel() {
        let model = HeadlinesViewModel()
        model.refreshes.onNext(["Swift 6.3 released"])
        XCTAssertEqual(model.headlines, ["Swift 6.3 released"])
    }

    func testTickingClock() {
        let clock = TickingClock()
        clock.start(on: SerialDispatchQueueScheduler(qos: .utility), into: coordinatorBag)
    }

    func testWeakHeadlinesViewModel() {
        let model = WeakHeadlinesViewModel()
        model.refreshes.onNext(["a"])
        XCTAssertEqual(model.headlines, ["a"])
    }
}

/// The documented Swift Testing setup: the `.diagnosed` trait and one `install()`.
@Suite(.diagnosed, .enabled(if: Fixture.isActive, Fixture.disabledReason))
struct HookTraitFixtures {
    init() {
        RxDiagnosticsHooks.install()
    }

    @Test func headlinesViewModel() {
        let model = HeadlinesViewModel()
        model.refreshes.onNext(["Swift 6.3 released"])
        #expect(model.headlines == ["Swift 6.3 released"])
    }

    @Test func tickingClock() {
        TickingClock().start(on: SerialDispatchQueueScheduler(qos: .utility), into: coordinatorBag)
    }

    @Test func weakHeadlinesViewModel() {
        let model = WeakHeadlinesViewModel()
        model.refreshes.onNext(["a"])
        #expect(model.headlines == ["a"])
    }
}
