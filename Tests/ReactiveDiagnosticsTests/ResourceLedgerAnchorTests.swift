@_spi(Integration) import ReactiveDiagnostics
import Testing
import ReactiveDiagnosticsRetainPaths

@Suite("Resource ledger: retain-path anchors")
struct ResourceLedgerAnchorTests {
    final class Subscriber {}

    let label = DiagnosticLabel("feed")

    private func address(_ object: AnyObject) -> UInt {
        UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
    }

    @Test func anAnchorIsKeptWhileTheResourceLivesAndNotAfter() {
        let ledger = ResourceLedger()
        let subscriber = Subscriber()
        let atRegistration = ledger.register(
            kind: .subscription, label: label, stack: .none, test: .none, anchor: subscriber)
        let later = ledger.register(kind: .subscription, label: label, stack: .none, test: .none)
        let plain = ledger.register(kind: .subscription, label: label, stack: .none, test: .none)
        ledger.setAnchor(later, holderOf: subscriber)
        #expect(ledger.anchor(of: atRegistration) == .object(address(subscriber)))
        #expect(ledger.anchor(of: later) == .holderOf(address(subscriber)))
        #expect(ledger.anchor(of: plain) == nil)
        ledger.unregister(atRegistration)
        #expect(ledger.anchor(of: atRegistration) == nil)
        ledger.setAnchor(atRegistration, object: subscriber)
        #expect(ledger.anchor(of: atRegistration) == nil, "an ended resource takes no anchor")
        #expect(ledger.anchor(of: .none) == nil)
    }

    @Test func aReusedSlotDoesNotInheritTheAnchorOfItsLastResource() {
        let ledger = ResourceLedger()
        let subscriber = Subscriber()
        // Enough to make the shard sweep its ended slots and hand them out again.
        let first = (0..<300).map { _ in
            ledger.register(kind: .subscription, label: label, stack: .none, test: .none, anchor: subscriber)
        }
        first.forEach { ledger.unregister($0) }
        let second = (0..<600).map { _ in ledger.register(kind: .subscription, label: label, stack: .none, test: .none)
        }
        // A token's slot: its bits 8..47 (the generation tells reuses of one slot apart).
        let slot = { (token: ResourceToken) in token.rawValue >> 8 & 0xff_ffff_ffff }
        #expect(!Set(first.map(slot)).isDisjoint(with: second.map(slot)), "slots were reused")
        #expect(second.allSatisfy { ledger.anchor(of: $0) == nil })
        #expect(first.allSatisfy { ledger.anchor(of: $0) == nil })
        #expect(ledger.liveCount(of: .subscription) == 600)
    }

    @Test func aHeldResourceWithoutAnAnchorIsExplainedByTheHolderOfItsObject() {
        let ledger = ResourceLedger()
        let stackArray = Subscriber()
        let token = ledger.register(kind: .observer, label: label, stack: .none, test: .none)
        ledger.hold(token, object: stackArray)
        #expect(ledger.anchor(of: token) == .holderOf(address(stackArray)))
        let subscriber = Subscriber()
        ledger.setAnchor(token, object: subscriber)
        #expect(ledger.anchor(of: token) == .object(address(subscriber)), "a set anchor wins over the held object")
    }

    @Test func monitorsNameAnchorsOnlyWhileRetainPathsAreExplained() {
        let subscriber = Subscriber()
        let engine = DiagnosticsEngine(configuration: Configuration())
        let anchored = engine.makeStreamMonitor(label: label, anchor: subscriber)
        let named = engine.makeStreamMonitor(label: label)
        named.setRetainPathAnchor(subscriber)
        #expect(engine.ledger.anchor(of: anchored.token) == .object(address(subscriber)))
        #expect(engine.ledger.anchor(of: named.token) == .object(address(subscriber)))

        let quiet = DiagnosticsEngine(configuration: Configuration())
        quiet.updateConfiguration { $0.explainsRetainPaths = false }
        #expect(!quiet.explainsRetainPaths)
        let unanchored = quiet.makeStreamMonitor(label: label, anchor: subscriber)
        unanchored.setRetainPathAnchor(subscriber)
        #expect(quiet.ledger.anchor(of: unanchored.token) == nil)
        withExtendedLifetime((anchored, named, unanchored)) {}
    }
}
