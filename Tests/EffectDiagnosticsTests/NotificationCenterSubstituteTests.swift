import EffectDiagnostics
import Foundation
import ReactiveDiagnostics
import Testing

// Where NotificationCenter's methods can be overridden (Apple platforms, Linux before Swift
// 6.3), the diagnosed wrapper drops in where app code expects a `NotificationCenter`. From
// Swift 6.3 on Linux they cannot be (swift-foundation's NotificationCenter): there is no
// substitute, and the guide says so.
#if canImport(Darwin) || !compiler(>=6.3)

/// App code typed `NotificationCenter`, left as it is: it forgets to remove its observer.
final class ThemeFollower: @unchecked Sendable {
    private let center: NotificationCenter
    private var token: (any NSObjectProtocol)?
    private(set) var changes = 0

    init(center: NotificationCenter) {
        self.center = center
    }

    func start() {
        token = center.addObserver(forName: .themeChanged, object: nil, queue: nil) { [weak self] _ in
            self?.changes += 1
        }
    }

    func stop() {
        if let token { center.removeObserver(token) }
        token = nil
    }
}

@Suite("DiagnosedNotificationCenter: in place of a NotificationCenter")
struct NotificationCenterSubstituteTests {
    @Test func appCodeTypedNotificationCenterIsTrackedAndItsLeakedTokenFound() throws {
        let engine = makeEngine()
        let center = NotificationCenter()
        let follower = ThemeFollower(center: center.diagnosed(engine: engine).asNotificationCenter)
        let outcome = runTest(engine) {
            follower.start()
            center.post(name: .themeChanged, object: nil)  // posts on the wrapped center reach it
        }
        #expect(follower.changes == 1)
        let finding = try #require(outcome.findings.first)
        #expect(outcome.findings.count == 1)
        expectEvidence(engine, finding, kind: .observerNotRemoved, label: "ThemeChanged", test: outcome.test)
        expectStack(engine, finding.allocationStack, contains: "ThemeFollower.start")
        follower.stop()
    }

    @Test func removedThroughTheSubstituteIsNotALeak() {
        let engine = makeEngine()
        let center = NotificationCenter()
        let substitute = center.diagnosed(engine: engine).asNotificationCenter
        let outcome = runTest(engine) {
            let follower = ThemeFollower(center: substitute)
            follower.start()
            substitute.post(name: .themeChanged, object: nil, userInfo: nil)
            #expect(follower.changes == 1)
            follower.stop()
        }
        #expect(outcome.findings.isEmpty)
        #expect(engine.ledger.liveCount(of: .observer) == 0)
    }
}

#endif
