import Dispatch
import EffectDiagnostics
import Foundation
@_spi(Integration) @_spi(Testing) import ReactiveDiagnostics
import Testing

extension Notification.Name {
    static let sessionExpired = Notification.Name("SessionExpired")
    static let themeChanged = Notification.Name("ThemeChanged")
}

/// Block-based observers on Foundation's real NotificationCenter.
@Suite("DiagnosedNotificationCenter: notification observers")
struct DiagnosedNotificationCenterTests {
    /// A manager that observes in `start()` and removes in `stop()`, the way apps do.
    final class SessionWatcher: @unchecked Sendable {
        private let center: DiagnosedNotificationCenter
        private var tokens: [any NSObjectProtocol] = []
        let expirations = Recorder<Bool>()

        init(center: DiagnosedNotificationCenter) {
            self.center = center
        }

        func start() {
            tokens.append(
                center.addObserver(forName: .sessionExpired, queue: .main, expecting: .mainQueue) {
                    [expirations] _ in expirations.append(MainQueue.isCurrent)
                })
        }

        func stop() {
            tokens.forEach(center.removeObserver)
            tokens.removeAll()
        }
    }

    @Test func observersNeverRemovedAreReportedPerNameAndSite() throws {
        let engine = makeEngine()
        let center = NotificationCenter()
        let diagnosed = center.diagnosed(engine: engine)
        var tokens: [any NSObjectProtocol] = []
        let outcome = runTest(engine) {
            for _ in 0..<3 {
                tokens.append(diagnosed.addObserver(forName: .sessionExpired) { _ in })
            }
            tokens.append(diagnosed.addObserver(forName: .sessionExpired) { _ in })
            for _ in 0..<2 {
                tokens.append(diagnosed.addObserver(forName: .themeChanged) { _ in })
            }
        }
        #expect(outcome.findings.count == 3, "one per name and site: \(outcome.findings.map(\.message))")
        for finding in outcome.findings {
            expectEvidence(engine, finding, kind: .observerNotRemoved, label: finding.label ?? "?", test: outcome.test)
            #expect(finding.resourceKind == .observer)
        }
        let counts = outcome.findings.map { "\($0.label ?? "?") ×\($0.details["count"] ?? "?")" }
        #expect(counts.sorted() == ["SessionExpired ×1", "SessionExpired ×3", "ThemeChanged ×2"])
        let threeAtOneSite = try #require(outcome.findings.first { $0.details["count"] == "3" })
        #expect(
            threeAtOneSite.message
                == "3 notification observers 'SessionExpired' never removed: still registered at the end of the test")
        #expect(Set(outcome.findings.map(\.allocationStack)).count == 3, "three call sites")
        tokens.forEach(diagnosed.removeObserver)
        #expect(engine.ledger.liveCount(of: .observer) == 0)
    }

    @Test func droppingTheTokenDoesNotRemoveTheObserver() throws {
        let engine = makeEngine()
        let center = NotificationCenter()
        let deliveries = Recorder<String>()
        let outcome = runTest(engine) {
            var token: (any NSObjectProtocol)? = center.diagnosed(engine: engine)
                .addObserver(forName: .themeChanged) { deliveries.append($0.name.rawValue) }
            _ = token
            token = nil  // the manager holding it was released: the observer stays registered
            center.post(name: .themeChanged, object: nil)
        }
        #expect(deliveries.all == ["ThemeChanged"], "Foundation still delivers to the dropped observer")
        let finding = try onlyFinding(outcome, .observerNotRemoved)
        expectEvidence(engine, finding, kind: .observerNotRemoved, label: "ThemeChanged", test: outcome.test)
        #expect(engine.ledger.liveCount(of: .observer) == 1, "it can never be removed now")
    }

    @Test func removingThroughThePlainCenterEndsTheObserver() {
        let engine = makeEngine()
        let center = NotificationCenter()
        let deliveries = Recorder<String>()
        let outcome = runTest(engine) {
            let token = center.diagnosed(engine: engine).addObserver(forName: .themeChanged) {
                deliveries.append($0.name.rawValue)
            }
            center.post(name: .themeChanged, object: nil)
            center.removeObserver(token)
            #expect(engine.ledger.liveCount(of: .observer) == 0, "Foundation released the block inside removeObserver")
            center.post(name: .themeChanged, object: nil)
        }
        #expect(outcome.findings.isEmpty)
        #expect(deliveries.count == 1)
        #expect(engine.ledger.liveCount(of: .observer) == 0)
    }

    @Test func aDeallocatedCenterTakesItsObserversWithIt() {
        let engine = makeEngine()
        let outcome = runTest(engine) {
            var center: NotificationCenter? = NotificationCenter()
            _ = center?.diagnosed(engine: engine).addObserver(forName: .sessionExpired) { _ in }
            #expect(engine.ledger.liveCount(of: .observer) == 1)
            center = nil
            #expect(engine.ledger.liveCount(of: .observer) == 0)
        }
        #expect(outcome.findings.isEmpty)
        #expect(engine.ledger.liveCount(of: .observer) == 0)
    }

    @Test func aNotificationDeliveredOffTheExpectedQueueIsAWrongThread() throws {
        let engine = makeEngine()
        let center = NotificationCenter()
        let diagnosed = center.diagnosed(engine: engine)
        let deliveredOnMain = Recorder<Bool>()
        var token: (any NSObjectProtocol)?
        let outcome = runTest(engine) {
            // queue: nil delivers on the posting thread, here a background queue.
            token = diagnosed.addObserver(forName: .sessionExpired, expecting: .mainQueue) { _ in
                deliveredOnMain.append(MainQueue.isCurrent)
            }
            let posted = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                center.post(name: .sessionExpired, object: nil)
                posted.signal()
            }
            #expect(posted.wait(timeout: .now() + 5) == .success)
            token.map(diagnosed.removeObserver)
        }
        let finding = try onlyFinding(outcome, .wrongThread)
        expectEvidence(engine, finding, kind: .wrongThread, label: "SessionExpired", test: outcome.test)
        #expect(
            finding.message.hasPrefix(
                "notification 'SessionExpired' was delivered on the wrong thread: its observer expects the main queue, was thread "
            ))
        #expect(finding.details["notification"] == "SessionExpired")
        #expect(finding.thread?.isMainQueue == false)
        #expect(deliveredOnMain.all == [false])
        #expect(outcome.findings.count == 1)
    }

    @Test func aCorrectObserverLifecycleLeavesNothingBehind() async {
        let engine = makeEngine()
        let center = NotificationCenter()
        let watcher = SessionWatcher(center: center.diagnosed(engine: engine))
        let outcome = await runAsyncTest(engine) {
            watcher.start()
            #expect(engine.ledger.liveCount(of: .observer) == 1)
            // Posted from a background queue; `queue: .main` moves delivery to the main queue.
            DispatchQueue.global().async { center.post(name: .sessionExpired, object: nil) }
            await eventually { watcher.expirations.count == 1 }
            watcher.stop()
        }
        #expect(outcome.findings.isEmpty)
        #expect(watcher.expirations.all == [true])
        #expect(engine.ledger.registeredCount(of: .observer) == 1)
        #expect(engine.ledger.liveCount(of: .observer) == 0)
        #expect(engine.ledger.liveCount == 0)
    }

    @Test func aDisabledEngineAddsPlainObservers() {
        let engine = makeEngine()
        engine.updateConfiguration { $0.isEnabled = false }
        let center = NotificationCenter()
        let diagnosed = center.diagnosed(engine: engine)
        let deliveries = Recorder<Bool>()
        let outcome = runTest(engine) {
            let token = diagnosed.addObserver(forName: .themeChanged, expecting: .mainQueue) { _ in
                deliveries.append(MainQueue.isCurrent)
            }
            diagnosed.post(name: .themeChanged)
            diagnosed.removeObserver(token)
            diagnosed.post(name: .themeChanged)
        }
        #expect(outcome.findings.isEmpty)
        #expect(deliveries.all == [false], "delivered once, unchecked")
        #expect(engine.ledger.registeredCount(of: .observer) == 0)
    }

    @Test func removingTwiceOrAForeignTokenOnlyForwards() {
        let engine = makeEngine()
        let center = NotificationCenter()
        let diagnosed = center.diagnosed(engine: engine)
        let deliveries = Recorder<String>()
        let outcome = runTest(engine) {
            let plain = center.addObserver(forName: .themeChanged, object: nil, queue: nil) { _ in
                deliveries.append("plain")
            }
            let tracked = diagnosed.addObserver(forName: .themeChanged) { _ in deliveries.append("tracked") }
            diagnosed.removeObserver(tracked)
            diagnosed.removeObserver(tracked)
            diagnosed.removeObserver(plain)
            diagnosed.post(name: .themeChanged)
        }
        #expect(outcome.findings.isEmpty)
        #expect(deliveries.all.isEmpty, "both observers were removed from the real center")
        #expect(engine.ledger.registeredCount(of: .observer) == 1 && engine.ledger.liveCount(of: .observer) == 0)
    }
}
