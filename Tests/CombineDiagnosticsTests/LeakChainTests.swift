@_spi(Integration) import ReactiveDiagnostics
import CombineDiagnostics
import Foundation
import OpenCombineShim
import Testing

extension CombineAdapterTests {
    /// One bug, one finding: the stages of a leaked chain fold into one leak at the subscribe
    /// call; independent leaks stay apart.
    @Suite struct LeakChains {
        final class Bag {
            var cancellables: [AnyCancellable] = []
        }

        /// `subject` then `operators` maps, then a sink, subscribed at one line.
        @inline(never)
        static func subscribe(_ subject: PassthroughSubject<Int, Never>, operators: Int, into bag: Bag) {
            var chain = subject.eraseToAnyPublisher()
            for step in 0..<operators {
                chain = chain.map { $0 + step }.eraseToAnyPublisher()
            }
            chain.sink { _ in }.store(in: &bag.cancellables)
        }

        /// The fingerprint and stage count of the one leak a chain of `operators` maps leaves.
        static func leak(
            ofAChainOf operators: Int
        ) throws -> (fingerprint: String, stages: Int, stageFingerprints: String?) {
            let engine = makeEngine()
            let subject = PassthroughSubject<Int, Never>()
            let bag = Bag()
            let outcome = instrumented(engine) { _ in
                runTest(engine, "leakOfAChain") { subscribe(subject, operators: operators, into: bag) }
            }
            let leaks = outcome.findings.filter { $0.kind == .leakedSubscription }
            #expect(leaks.count == 1, "\(leaks.map { "\($0.label ?? "") \($0.details)" })")
            let leak = try #require(leaks.first)
            #expect(engine.symbolize(leak.allocationStack).contains(function: "LeakChains.subscribe"))
            bag.cancellables.removeAll()
            return (
                engine.fingerprint(of: leak), Int(leak.details["stageCount"] ?? "1") ?? 1,
                leak.details["stageFingerprints"]
            )
        }

        /// Ten erased operators cut the upstream stages' stacks (64 frames) in the user's frames
        /// or before them: they still join the chain they were subscribed inside.
        @Test(arguments: [1, 3, 10])
        func aLeakedChainIsOneFindingListingItsStages(operators: Int) throws {
            let leak = try Self.leak(ofAChainOf: operators)
            // A map per operator and the subject (OpenCombine's AnyPublisher subscribes no stage of its own).
            #expect(leak.stages == operators + 1, "stages of \(operators) operators")
            // Each stage's former fingerprint is kept for baselines written before chains folded.
            #expect(leak.stageFingerprints?.split(separator: " ").count == leak.stages)
        }

        @Test func addingAnOperatorKeepsTheFingerprint() throws {
            let shorter = try Self.leak(ofAChainOf: 3)
            let longer = try Self.leak(ofAChainOf: 4)
            #expect(shorter.fingerprint == longer.fingerprint)
        }

        @Test func twoLeaksOnOneSubjectAreTwoFindings() {
            let engine = makeEngine()
            let subject = PassthroughSubject<Int, Never>()
            let bag = Bag()
            let outcome = instrumented(engine) { _ in
                runTest(engine) {
                    subject.map { $0 + 1 }.sink { _ in }.store(in: &bag.cancellables)
                    subject.filter { $0 > 1 }.sink { _ in }.store(in: &bag.cancellables)
                }
            }
            let leaks = outcome.findings.filter { $0.kind == .leakedSubscription }
            #expect(leaks.count == 2, "\(leaks.map { "\($0.label ?? "") \($0.details)" })")
            #expect(leaks.allSatisfy { $0.details["stageCount"] == "2" })
            #expect(Set(leaks.map { engine.fingerprint(of: $0) }).count == 2)
            bag.cancellables.removeAll()
        }

        @Test func twoSubscriptionsOfOneShareAreTwoFindings() {
            let engine = makeEngine()
            let subject = PassthroughSubject<Int, Never>()
            let bag = Bag()
            let outcome = instrumented(engine) { _ in
                runTest(engine) {
                    let shared = subject.map { $0 * 2 }.share()
                    shared.sink { _ in }.store(in: &bag.cancellables)
                    shared.sink { _ in }.store(in: &bag.cancellables)
                }
            }
            let leaks = outcome.findings.filter { $0.kind == .leakedSubscription }
            #expect(leaks.count >= 2, "\(leaks.map { "\($0.label ?? "") \($0.details)" })")
            bag.cancellables.removeAll()
        }

        @Test func aChainCancelledWhileItsSubjectLivesLeavesNothing() {
            let engine = makeEngine()
            let subject = PassthroughSubject<Int, Never>()
            let bag = Bag()
            let outcome = instrumented(engine) { _ in
                runTest(engine) {
                    Self.subscribe(subject, operators: 3, into: bag)
                    subject.send(1)
                    bag.cancellables.removeAll()
                }
            }
            #expect(outcome.findings.isEmpty, "\(outcome.findings.map { engine.describe($0) })")
        }
    }
}
