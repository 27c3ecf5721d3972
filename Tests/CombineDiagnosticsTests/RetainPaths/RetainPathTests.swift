import CombineDiagnostics
import Foundation
import OpenCombineShim
import Testing

extension CombineAdapterTests {
    /// Why a leaked subscription is still alive, with real OpenCombine code: the retain cycle
    /// (owner, property, capturing closure and its line), under global instrumentation and
    /// through `.diagnosed()`.
    @Suite struct RetainPaths {
        @Test func aStrongSelfSinkStoredInTheOwnerIsACycle() throws {
            let engine = retainPathEngine()
            let feed = HeadlineFeed()
            let outcome = instrumented(engine) { _ in
                runTest(engine) {
                    _ = StrongSelfViewModel(feed: feed)
                }
            }
            let finding = try #require(onlyFinding(outcome, .leakedSubscription))
            let path = try #require(finding.retainPath, "no retain path on \(engine.describe(finding))")
            expectCycle(
                path, owner: "StrongSelfViewModel", field: "cancellables",
                closureLine: StrongSelfViewModel.closureLine, captures: "self")
            expectDescription(finding, engine)
            let text = engine.describe(finding)
            #expect(text.contains("retained by a cycle:"), "\(text)")
            #expect(text.contains("fix: capture [weak self]"), "\(text)")
            feed.headlines.send(completion: .finished)
        }

        @Test func aDiagnosedStrongSelfSinkIsACycle() throws {
            let engine = retainPathEngine()
            let feed = HeadlineFeed()
            let outcome = runTest(engine) {
                _ = DiagnosedStrongSelfViewModel(feed: feed, engine: engine)
            }
            let finding = onlyFinding(outcome, .leakedSubscription)
            expectEvidence(
                finding, engine, kind: .leakedSubscription, label: "headlines", outcome: outcome,
                function: "DiagnosedStrongSelfViewModel.init")
            let path = try #require(finding?.retainPath)
            expectCycle(
                path, owner: "DiagnosedStrongSelfViewModel", field: "cancellables",
                closureLine: DiagnosedStrongSelfViewModel.closureLine, captures: "self")
            feed.headlines.send(completion: .finished)
        }

        @Test func assignToSelfIsACycleThroughTheAssignSubscriber() throws {
            let engine = retainPathEngine()
            let titles = PassthroughSubject<String, Never>()
            let outcome = instrumented(engine) { _ in
                runTest(engine) {
                    _ = AssignToSelfViewModel(titles: titles)
                }
            }
            let finding = try #require(onlyFinding(outcome, .leakedSubscription))
            let path = try #require(finding.retainPath)
            #expect(path.verdict == .cycle, "\(path.textLines().joined(separator: "\n"))")
            #expect(path.cycle.first?.type == "AssignToSelfViewModel")
            #expect(path.cycle.first?.links.first?.name == "cancellables")
            let assign = try #require(path.cycle.first { $0.type.hasPrefix("Assign<") })
            #expect(assign.isSubscription)
            #expect(assign.links.first?.name == "object")
            let text = path.textLines().joined(separator: "\n")
            #expect(text.contains(".object: AssignToSelfViewModel?"), "\(text)")
            #expect(text.contains("fix: assign(to:on:) holds AssignToSelfViewModel strongly"), "\(text)")
            titles.send(completion: .finished)
        }

        @Test func aCycleThroughASecondObjectNamesBoth() throws {
            let engine = retainPathEngine()
            let service = FeedService()
            let outcome = instrumented(engine) { _ in
                runTest(engine) {
                    _ = ServiceCycleViewModel(service: service)
                }
            }
            // Two stages leak (the sink and the map's subscriber): one chain, one finding, which
            // is explained. The view model holds its service, which holds the subscription
            // (through its cancellable, or the feed's subject that holds its subscribers).
            let findings = outcome.findings.filter { $0.kind == .leakedSubscription }
            #expect(findings.count == 1)
            #expect(findings.first?.details["stageCount"] == "2")
            var serviceFields: Set<String> = []
            for finding in findings {
                let path = try #require(finding.retainPath)
                expectCycle(
                    path, owner: "ServiceCycleViewModel", field: "service",
                    closureLine: ServiceCycleViewModel.closureLine, captures: "self")
                let service = try #require(path.cycle.first { $0.type == "FeedService" })
                serviceFields.formUnion(service.links.compactMap(\.name).prefix(1))
            }
            #expect(serviceFields.contains("cancellables"), "\(serviceFields)")
            service.feed.headlines.send(completion: .finished)
        }

        @Test func aWeakSelfSinkLeavesNothingBehind() {
            let engine = retainPathEngine()
            let feed = HeadlineFeed()
            let outcome = instrumented(engine) { _ in
                runTest(engine) {
                    let model = WeakSelfViewModel(feed: feed)
                    feed.headlines.send(["Swift 6.3 released"])
                    #expect(model.headlines == ["Swift 6.3 released"])
                }
            }
            #expect(outcome.findings.isEmpty, "\(outcome.findings.map { engine.describe($0) })")
        }

        @Test func aSubscriptionKeptByAGlobalIsNotACycle() throws {
            let engine = retainPathEngine()
            let feed = HeadlineFeed()
            let outcome = instrumented(engine) { _ in
                runTest(engine) {
                    _ = GloballyKeptViewModel(feed: feed)
                }
            }
            let finding = try #require(onlyFinding(outcome, .leakedSubscription))
            expectDescription(finding, engine)
            let path = try #require(finding.retainPath)
            #expect(path.verdict == .notACycle, "\(path.textLines().joined(separator: "\n"))")
            #expect(path.cycle.isEmpty)
            // What it holds is said: the closure's weak capture of the view model.
            #expect(
                path.holds.contains { $0.strength == .weak && $0.type.contains("GloballyKeptViewModel") },
                "\(path.holds)")
            #expect(path.textLines().first?.hasPrefix("not a retain cycle") == true)
            let text = path.textLines().joined(separator: "\n")
            // Thread Sanitizer's allocator keeps no chunk headers: the scan then cannot read
            // some closure contexts on the way up, and says it found no holder; it never
            // names a wrong one.
            if path.holder == nil, runsUnderThreadSanitizer {
                #expect(path.heldBy.isEmpty, "\(text)")
                #expect(
                    text.hasPrefix("not a retain cycle: nothing the subscription holds leads back to it"), "\(text)")
                retainPathKeeper.removeAll()
                return
            }
            // The holder outside, found by scanning memory: the global variable, then the
            // objects from it down to the subscription.
            #expect(path.holder == "CombineDiagnosticsTests.retainPathKeeper", "\(text)\n\(path.notes)")
            #expect(path.heldBy.map(\.type).first == "Set<AnyCancellable>")
            #expect(path.heldBy.contains { $0.type == "AnyCancellable" })
            #expect(path.heldBy.last?.isSubscription == true)
            retainPathKeeper.removeAll()
        }

        @Test func leaksOfOneTestAreExplainedTogetherEachByItsOwnHolder() throws {
            // A cycle, a global's and memory of the app's own, left by one test: the searches
            // for outside holders share their scans of memory, and each path is still its own.
            // (A feed each: subscribers of one subject reach each other through it.)
            let engine = retainPathEngine()
            let feeds = (HeadlineFeed(), HeadlineFeed(), HeadlineFeed())
            let outcome = instrumented(engine) { _ in
                runTest(engine) {
                    _ = StrongSelfViewModel(feed: feeds.0)
                    _ = GloballyKeptViewModel(feed: feeds.1)
                    _ = UnsafelyKeptViewModel(feed: feeds.2)
                }
            }
            defer {
                retainPathKeeper.removeAll()
                UnsafelyKeptViewModel.release()
                for feed in [feeds.0, feeds.1, feeds.2] {
                    feed.headlines.send(completion: .finished)
                }
            }
            let paths = outcome.findings.filter { $0.kind == .leakedSubscription }.compactMap(\.retainPath)
            #expect(paths.count == 3, "\(outcome.findings.map { engine.describe($0) })")
            func path(of owner: String) -> ReportRetainPath? {
                paths.first { path in
                    path.cycle.contains { $0.type == owner } || path.holds.contains { $0.type.contains(owner) }
                }
            }
            let cycle = try #require(path(of: "StrongSelfViewModel"))
            expectCycle(
                cycle, owner: "StrongSelfViewModel", field: "cancellables",
                closureLine: StrongSelfViewModel.closureLine, captures: "self")
            let global = try #require(path(of: "GloballyKeptViewModel"))
            let unsafe = try #require(path(of: "UnsafelyKeptViewModel"))
            #expect(global.verdict == .notACycle && unsafe.verdict == .notACycle)
            #expect(unsafe.holder == nil && unsafe.heldBy.isEmpty, "\(unsafe.textLines())")
            // Under Thread Sanitizer a holder may go unfound (see the test above), never a wrong one.
            if !runsUnderThreadSanitizer || global.holder != nil {
                #expect(
                    global.holder == "CombineDiagnosticsTests.retainPathKeeper",
                    "\(global.textLines())\n\(global.notes)")
                #expect(global.heldBy.last?.isSubscription == true)
            }
        }

        @Test func aSubscriberKeepingItsUnfinishedSubscriptionIsHeldOnlyByItself() throws {
            // A subscriber of the app's own keeps its subscription and asks for one value of
            // three; `subscribe(_:)` returns no cancellable and nothing else holds either of
            // them: they hold each other until cancelled, and nothing can reach them to cancel.
            let engine = retainPathEngine()
            nonisolated(unsafe) weak var kept: PagingSubscriber?
            let outcome = instrumented(engine) { _ in
                runTest(engine) {
                    let pager = PagingSubscriber()
                    kept = pager
                    [1, 2, 3].publisher.subscribe(pager)
                    #expect(pager.received == [1])
                }
            }
            // Ends the loop the test made (the library's tests run under LeakSanitizer too).
            defer { kept?.cancel() }
            let finding = try #require(onlyFinding(outcome, .leakedSubscription))
            #expect(finding.test == outcome.test)
            expectStack(engine, finding.allocationStack, contains: #function)
            expectDescription(finding, engine)
            let path = try #require(finding.retainPath)
            let text = path.textLines().joined(separator: "\n")
            #expect(path.verdict == .heldOnlyByItself, "\(text)\n\(path.notes)")
            #expect(path.holder == nil && path.heldBy.isEmpty, "\(text)")
            // The loop, from the subscription round to itself: the sequence's subscription and
            // the app's subscriber that keeps it.
            #expect(path.cycle.contains { $0.isSubscription }, "\(text)")
            #expect(path.cycle.contains { $0.type == "PagingSubscriber" }, "\(text)")
            #expect(text.hasPrefix("held only by itself: nothing outside holds it"), "\(text)")
            #expect(path.summary.hasPrefix("held only by itself: "), "\(path.summary)")
            #expect(path.summary.contains("PagingSubscriber"), "\(path.summary)")
            #expect(path.fix?.hasPrefix("end it when its work is done") == true, "\(path.fix ?? "")")
            let described = engine.describe(finding)
            #expect(described.contains("held only by itself"), "\(described)")
        }

        @Test func aSubscriberThatCancelsItsSubscriptionLeavesNothingBehind() {
            let engine = retainPathEngine()
            let outcome = instrumented(engine) { _ in
                runTest(engine) {
                    let pager = PagingSubscriber()
                    [1, 2, 3].publisher.subscribe(pager)
                    #expect(pager.received == [1])
                    pager.cancel()
                }
            }
            #expect(outcome.findings.isEmpty, "\(outcome.findings.map { engine.describe($0) })")
        }

        @Test func aSubscriptionKeptOutsideSwiftObjectsNamesNoHolder() throws {
            // Held only by memory the app allocated itself: the scan finds the word but no
            // object or global variable around it, so the path says the holder is unknown
            // instead of inventing one.
            let engine = retainPathEngine()
            let feed = HeadlineFeed()
            let outcome = instrumented(engine) { _ in
                runTest(engine) {
                    _ = UnsafelyKeptViewModel(feed: feed)
                }
            }
            let finding = try #require(onlyFinding(outcome, .leakedSubscription))
            expectDescription(finding, engine)
            let path = try #require(finding.retainPath)
            let text = path.textLines().joined(separator: "\n")
            #expect(path.verdict == .notACycle, "\(text)")
            #expect(path.cycle.isEmpty, "\(text)")
            #expect(path.holder == nil, "\(text)")
            #expect(path.heldBy.isEmpty, "\(text)")
            #expect(
                path.holds.contains { $0.strength == .weak && $0.type.contains("UnsafelyKeptViewModel") }, "\(text)")
            #expect(text.hasPrefix("not a retain cycle: nothing the subscription holds leads back to it"), "\(text)")
            #expect(!text.contains("fix:"), "\(text)")
            let described = engine.describe(finding)
            #expect(described.contains("\n  not a retain cycle: nothing the subscription holds"), "\(described)")
            UnsafelyKeptViewModel.release()
        }
    }
}

/// An engine whose retain-path walks are not cut short by a loaded machine (the default limit
/// is a product setting; a test's answer must not depend on the time it took), with source
/// lines on: closures' lines and captures' names come from debug information.
func retainPathEngine() -> DiagnosticsEngine {
    makeEngine {
        $0.retainPathLimits.time = .seconds(60)
        $0.resolvesSourceLines = true
    }
}

/// Asserts a retain cycle owned by `owner` through its property `field`, with the user's
/// closure at `closureLine` capturing `captures` strongly.
func expectCycle(
    _ path: ReportRetainPath, owner: String, field: String, closureLine: Int, captures: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let text = path.textLines().joined(separator: "\n")
    #expect(path.verdict == .cycle, "\(text)", sourceLocation: sourceLocation)
    #expect(path.cycle.first?.type == owner, "\(text)", sourceLocation: sourceLocation)
    #expect(path.cycle.first?.category == .user, sourceLocation: sourceLocation)
    #expect(path.cycle.first?.links.first?.name == field, "\(text)", sourceLocation: sourceLocation)
    #expect(path.cycle.contains { $0.isSubscription }, "\(text)", sourceLocation: sourceLocation)
    let closures = path.cycle.flatMap(\.links).compactMap { link in
        link.closure.map { (closure: $0, name: link.name) }
    }.filter { $0.closure.category == .user }
    #expect(
        closures.contains {
            $0.closure.line == closureLine && $0.closure.file?.hasSuffix("RetainPathFixtures.swift") == true
        },
        "no closure at line \(closureLine): \(closures)", sourceLocation: sourceLocation)
    // The report keeps the closure's line as written (what `reactive-diag fix` checks).
    let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("RetainPathFixtures.swift")
    if let lines = try? String(contentsOf: fixture, encoding: .utf8).split(
        separator: "\n", omittingEmptySubsequences: false),
        let closure = closures.first(where: { $0.closure.line == closureLine })?.closure, closureLine <= lines.count
    {
        #expect(
            closure.sourceText == lines[closureLine - 1].trimmingCharacters(in: .whitespaces),
            sourceLocation: sourceLocation)
    }
    #expect(text.contains("captures `\(captures)` strongly"), "\(text)", sourceLocation: sourceLocation)
    #expect(text.contains("→ \(owner) (the same object)"), "\(text)", sourceLocation: sourceLocation)
}

/// Whether this process runs under Thread Sanitizer (its runtime is linked in).
let runsUnderThreadSanitizer = dlsym(nil, "__tsan_init") != nil
