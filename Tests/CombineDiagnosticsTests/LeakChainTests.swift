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

        /// Subscribes a `flatMap` whose inner publishers never complete, and sends one value.
        @inline(never)
        static func subscribeFlatMap(_ subject: PassthroughSubject<Int, Never>, into bag: Bag) {
            subject.flatMap { _ in Empty<Int, Never>(completeImmediately: false) }
                .map { $0 + 1 }
                .sink { _ in }
                .store(in: &bag.cancellables)
        }

        @inline(never)
        static func sendOne(_ subject: PassthroughSubject<Int, Never>) {
            subject.send(1)
        }

        /// The leaks of a test that runs `body`.
        static func leaks(
            _ engine: DiagnosticsEngine, _ body: @escaping () -> Void
        ) -> [Finding] {
            let outcome = instrumented(engine) { _ in runTest(engine, "nestedLeak") { body() } }
            return outcome.findings.filter { $0.kind == .leakedSubscription }
        }

        @Test func aFlatMapInnerKeptByItsLeakedChainIsFoldedIntoIt() throws {
            let engine = makeEngine()
            let subject = PassthroughSubject<Int, Never>()
            let bag = Bag()
            let leaks = Self.leaks(engine) {
                Self.subscribeFlatMap(subject, into: bag)
                Self.sendOne(subject)
            }
            #expect(leaks.count == 1, "\(leaks.map { "\($0.label ?? "") \($0.details)" })")
            let leak = try #require(leaks.first)
            let stages = leak.details["stages"] ?? ""
            #expect(stages.hasPrefix("Empty<Int, Never> (inner of FlatMap) → "), "\(stages)")
            #expect(engine.symbolize(leak.allocationStack).contains(function: "LeakChains.subscribeFlatMap"))
            // The chain's source is still open: nobody cancelled the chain, the inner is no cause.
            #expect(leak.details["cause"] == nil)
            // The inner's own fingerprint is kept, for baselines written before it was folded.
            #expect(
                leak.details["stageFingerprints"]?.split(separator: " ").count == Int(leak.details["stageCount"] ?? ""))
            bag.cancellables.removeAll()
        }

        @Test func anInnerThatNeverEndsAfterTheSourceFinishedIsNamedTheCause() throws {
            let engine = makeEngine()
            let subject = PassthroughSubject<Int, Never>()
            let bag = Bag()
            let leaks = Self.leaks(engine) {
                Self.subscribeFlatMap(subject, into: bag)
                Self.sendOne(subject)
                subject.send(completion: .finished)
            }
            #expect(leaks.count == 1, "\(leaks.map { "\($0.label ?? "") \($0.details)" })")
            let leak = try #require(leaks.first)
            #expect(leak.details["cause"] == "Empty<Int, Never>", "\(leak.details)")
            #expect(
                leak.message.contains(
                    "Cause: its source ended, but the inner publisher `Empty<Int, Never>` that FlatMap subscribed"))
            #expect(leak.test.name == "CombineAdapterTests.nestedLeak")
            // Told at the subscribe call; the cause's own line (where the value that made it was sent) beside it.
            #expect(engine.symbolize(leak.allocationStack).contains(function: "LeakChains.subscribeFlatMap"))
            #expect(engine.symbolize(leak.relatedStack).contains(function: "LeakChains.sendOne"))
            #expect(leak.details["relatedStackRole"] == "never-ending inner publisher subscribed")
            // The report keeps every stage with its own stack; the cause is marked.
            let report = engine.makeReport()
            let written = try #require(report.findings.first { $0.id == leak.id })
            let chain = try #require(written.chain)
            #expect(chain.count == Int(leak.details["stageCount"] ?? ""))
            #expect(written.stages == chain.map(\.name))
            let cause = try #require(chain.first { $0.isCause })
            #expect(cause.innerOf == "FlatMap" && cause.label == "Empty<Int, Never>")
            let causeStack = try #require(report.stacks.first { $0.id == cause.allocationStack })
            #expect(causeStack.frames.contains { $0.function?.contains("LeakChains.sendOne") == true })
            #expect(Set(chain.map(\.fingerprint)) == Set(written.fingerprints.dropFirst()))
            #expect(report.validationProblem() == nil)
            bag.cancellables.removeAll()
        }

        @Test func anInnerThatCompletesLeavesNothing() {
            let engine = makeEngine()
            let subject = PassthroughSubject<Int, Never>()
            let bag = Bag()
            let leaks = Self.leaks(engine) {
                subject.flatMap { Just($0) }.sink { _ in }.store(in: &bag.cancellables)
                Self.sendOne(subject)
                subject.send(completion: .finished)
            }
            #expect(leaks.isEmpty, "\(leaks.map { engine.describe($0) })")
        }

        /// A sink whose closure subscribes another chain: that chain is kept by the bag, not by
        /// the sink, so two leaks stay two findings.
        @Test func aChainSubscribedInsideASinkIsNoInnerOfIt() {
            let engine = makeEngine()
            let subject = PassthroughSubject<Int, Never>()
            let other = PassthroughSubject<Int, Never>()
            let bag = Bag()
            let leaks = Self.leaks(engine) {
                subject.map { $0 }.sink { _ in
                    other.map { $0 }.sink { _ in }.store(in: &bag.cancellables)
                }.store(in: &bag.cancellables)
                Self.sendOne(subject)
            }
            #expect(leaks.count == 2, "\(leaks.map { "\($0.label ?? "") \($0.details)" })")
            #expect(leaks.allSatisfy { !($0.details["stages"] ?? "").contains("inner of") })
            bag.cancellables.removeAll()
        }

        /// Also behind `Deferred`, the usual way to make a `Future` lazy.
        @Test(arguments: [false, true])
        func aFutureWhosePromiseIsNeverCalledIsNamedTheCause(deferred: Bool) throws {
            let engine = makeEngine()
            let bag = Bag()
            let leaks = Self.leaks(engine) {
                if deferred {
                    Deferred { Future<Int, Never> { _ in } }.map { $0 + 1 }.sink { _ in }.store(in: &bag.cancellables)
                } else {
                    Future<Int, Never> { _ in }.map { $0 + 1 }.sink { _ in }.store(in: &bag.cancellables)
                }
            }
            #expect(leaks.count == 1, "\(leaks.map { "\($0.label ?? "") \($0.details)" })")
            let leak = try #require(leaks.first)
            #expect(leak.details["cause"] == "Future<Int, Never>", "\(leak.details)")
            #expect(leak.message.contains("Cause: its source, a `Future`, never completed"))
            #expect(leak.test.name == "CombineAdapterTests.nestedLeak")
            #expect(
                engine.symbolize(leak.allocationStack).contains(
                    function: "aFutureWhosePromiseIsNeverCalledIsNamedTheCause"),
                "\(engine.describe(leak))")
            bag.cancellables.removeAll()
        }

        @Test func aFutureWhosePromiseIsCalledLeavesNothing() {
            let engine = makeEngine()
            let bag = Bag()
            let leaks = Self.leaks(engine) {
                Future<Int, Never> { promise in promise(.success(1)) }.map { $0 + 1 }.sink { _ in }
                    .store(in: &bag.cancellables)
            }
            #expect(leaks.isEmpty, "\(leaks.map { engine.describe($0) })")
        }

        /// Stages counted by global instrumentation and a `.diagnosed()` stage in one chain are
        /// one leak too: the diagnosed stage is one of its stages.
        @Test func aChainMixingGlobalAndDiagnosedStagesIsOneFinding() throws {
            let engine = makeEngine()
            let subject = PassthroughSubject<Int, Never>()
            let bag = Bag()
            let leaks = Self.leaks(engine) {
                subject.map { $0 + 1 }.diagnosed("prices", engine: engine).filter { $0 > 0 }.sink { _ in }
                    .store(in: &bag.cancellables)
            }
            #expect(leaks.count == 1, "\(leaks.map { "\($0.label ?? "") \($0.details)" })")
            let leak = try #require(leaks.first)
            #expect((leak.details["stages"] ?? "").contains("prices"), "\(leak.details)")
            #expect(leak.test.name == "CombineAdapterTests.nestedLeak")
            #expect(
                engine.symbolize(leak.allocationStack).contains(
                    function: "aChainMixingGlobalAndDiagnosedStagesIsOneFinding"))
            bag.cancellables.removeAll()
        }
    }
}
