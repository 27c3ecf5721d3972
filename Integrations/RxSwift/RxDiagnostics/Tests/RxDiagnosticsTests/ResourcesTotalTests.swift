#if TRACE_RESOURCES
import Foundation
@_spi(Testing) import ReactiveDiagnostics
import RxDiagnostics
@preconcurrency import RxSwift
import Testing

extension RxIntegrationTests {
    /// RxSwift's `Resources.total` next to the ledger, in a build of RxSwift with
    /// `-D TRACE_RESOURCES` (`swift test -Xswiftc -DTRACE_RESOURCES`, see Docs/RxSwift.md).
    @Suite("Resources.total side by side (TRACE_RESOURCES)")
    struct ResourcesTotalTests {
        func subscribeToFeed(_ feed: PublishSubject<Int>, _ engine: DiagnosticsEngine, _ bag: DisposeBag) {
            feed.diagnosed("feed", engine: engine).subscribe(onNext: { _ in }).disposed(by: bag)
        }

        func subscribeToClock(_ clock: PublishSubject<Int>, _ engine: DiagnosticsEngine, _ bag: DisposeBag) {
            clock.map { $0 + 1 }.diagnosed("clock", engine: engine).subscribe(onNext: { _ in }).disposed(by: bag)
        }

        @Test func resourcesTotalIsOneGlobalNumberTheLedgerCountsEachSite() throws {
            let engine = makeEngine(settle: .milliseconds(100))
            let feed = PublishSubject<Int>()
            let clock = PublishSubject<Int>()
            var bag: DisposeBag? = DisposeBag()
            let before = Resources.total
            var during: Int32 = 0
            let outcome = runTest(engine) {
                for _ in 0..<3 {
                    subscribeToFeed(feed, engine, bag!)
                }
                for _ in 0..<2 {
                    subscribeToClock(clock, engine, bag!)
                }
                during = Resources.total
            }
            // Ours: one finding per site, with its count and its stack; no rebuild needed.
            let leaks = outcome.findings.filter { $0.kind == .leakedSubscription }
            let byLabel = Dictionary(uniqueKeysWithValues: leaks.map { ($0.label ?? "", $0) })
            #expect(leaks.count == 2)
            let feedLeak = try #require(byLabel["feed"])
            let clockLeak = try #require(byLabel["clock"])
            #expect(feedLeak.details["count"] == "3" && clockLeak.details["count"] == "2")
            expectStack(engine, feedLeak.allocationStack, contains: "subscribeToFeed")
            expectStack(engine, clockLeak.allocationStack, contains: "subscribeToClock")
            // RxSwift's: one number for the whole process, no site.
            bag = nil
            let after = Resources.total
            #expect(during - before >= 5, "at least one RxSwift resource per live subscription")
            // Not `==`: the number is global, and what earlier tests left may be released meanwhile.
            #expect(after <= before, "disposing the bag releases every RxSwift resource it held")
            #expect(engine.liveCount(of: .subscription) == 0)
            FileHandle.standardError.write(
                Data(
                    """
                    Resources.total: \(before) before, \(during) with 5 live subscriptions, \(after) after disposing. \
                    Ledger: 'feed' \(feedLeak.details["count"] ?? "?") live at subscribeToFeed, \
                    'clock' \(clockLeak.details["count"] ?? "?") live at subscribeToClock.\n
                    """.utf8))
        }
    }
}
#endif
