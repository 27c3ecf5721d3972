import Foundation
import ReactiveDiagnosticsReport
import Testing

/// The retain path as the report keeps it and as every output shows it.
@Suite("Retain paths")
struct ReportRetainPathTests {
    /// The classic cycle, as the engine records it for the demo's `FeedViewModel`.
    static let feedCycle = ReportRetainPath(
        verdict: .cycle,
        cycle: [
            ReportRetainStep(
                type: "FeedViewModel", module: "NewsApp", category: .user,
                links: [
                    ReportRetainLink(kind: .field, name: "cancellables", type: "Set<AnyCancellable>"),
                    ReportRetainLink(kind: .element, strength: .strong),
                ]),
            ReportRetainStep(
                type: "AnyCancellable", module: "OpenCombine", category: .framework,
                links: [
                    ReportRetainLink(kind: .field, name: "_cancel", type: "Optional<() -> ()>"),
                    ReportRetainLink(
                        kind: .closure, name: "canceller",
                        closure: ReportClosure(
                            function: "implicit closure #2 in AnyCancellable.init<A>(_:)", category: .framework)),
                    ReportRetainLink(
                        kind: .capture, name: "canceller", type: "Sink<Array<String>, Never>", strength: .strong),
                ]),
            ReportRetainStep(
                type: "Sink<Array<String>, Never>", module: "OpenCombine", category: .framework, isSubscription: true,
                links: [
                    ReportRetainLink(kind: .field, name: "receiveValue", type: "(Array<String>) -> ()"),
                    ReportRetainLink(
                        kind: .closure, name: "self",
                        closure: ReportClosure(
                            function: "closure #2 in NewsApp.FeedViewModel.refresh()",
                            file: "/src/NewsApp/FeedViewModel.swift", line: 32, column: 37, category: .user),
                        strength: .strong),
                ]),
        ],
        holds: [
            ReportRetainHold(
                from: "Sink<Array<String>, Never>",
                links: [
                    ReportRetainLink(kind: .field, name: "receiveValue", type: "(Array<String>) -> ()"),
                    ReportRetainLink(
                        kind: .closure, name: "self",
                        closure: ReportClosure(
                            function: "closure #2 in NewsApp.FeedViewModel.refresh()",
                            file: "/src/NewsApp/FeedViewModel.swift",
                            line: 32, category: .user),
                        strength: .strong),
                ],
                type: "FeedViewModel", strength: .strong)
        ],
        notes: [], objectsVisited: 6, milliseconds: 2.5)

    @Test func aCycleReadsLikeTheIssueAskedFor() {
        #expect(
            Self.feedCycle.textLines() == [
                "retained by a cycle:",
                "  FeedViewModel",
                "    .cancellables: Set<AnyCancellable>",
                "  → AnyCancellable → Sink<[String], Never> (this subscription)",
                "    .receiveValue: closure at FeedViewModel.swift:32 captures `self` strongly",
                "  → FeedViewModel (the same object)",
                "fix: capture [weak self] in the closure at FeedViewModel.swift:32 "
                    + "(cancelling in deinit is not enough: nothing releases FeedViewModel)",
            ])
        #expect(
            Self.feedCycle.summary
                == "retain cycle: FeedViewModel.cancellables → Sink<[String], Never> → closure at FeedViewModel.swift:32 captures self"
        )
    }

    @Test func aSubscriptionHeldByAGlobalNamesIt() {
        let path = ReportRetainPath(
            verdict: .notACycle,
            holds: [
                ReportRetainHold(
                    from: "Sink<Array<String>, Never>",
                    links: [
                        ReportRetainLink(kind: .field, name: "receiveValue"),
                        ReportRetainLink(
                            kind: .closure,
                            closure: ReportClosure(
                                function: "closure #1", file: "/src/Keeper.swift", line: 9, category: .user)),
                        ReportRetainLink(
                            kind: .capture, name: "self", type: "Optional<FeedViewModel>", strength: .weak),
                    ],
                    type: "Optional<FeedViewModel>", strength: .weak)
            ],
            holder: "NewsApp.keeper",
            heldBy: [
                ReportRetainStep(type: "Set<AnyCancellable>", category: .user),
                ReportRetainStep(type: "AnyCancellable", module: "OpenCombine", category: .framework),
                ReportRetainStep(type: "Sink<Array<String>, Never>", category: .framework, isSubscription: true),
            ])
        #expect(
            path.textLines() == [
                "not a retain cycle: the global variable `NewsApp.keeper` holds it",
                "  keeper: Set<AnyCancellable>",
                "  → AnyCancellable → Sink<[String], Never> (this subscription)",
                "  the subscription holds:",
                "    Sink<[String], Never>.receiveValue: closure at Keeper.swift:9 captures `self` weakly (FeedViewModel?)",
                "fix: cancel it, or remove it from keeper, when its work is done",
            ])
    }

    @Test func aSubscriptionHeldOnlyByItselfShowsItsLoopAndHowToEndIt() {
        let path = ReportRetainPath(
            verdict: .heldOnlyByItself,
            cycle: [
                ReportRetainStep(
                    type: "PagingSubscriber", module: "NewsApp", category: .user, isSubscription: true,
                    links: [ReportRetainLink(kind: .field, name: "subscription", strength: .strong)]),
                ReportRetainStep(
                    type: "Publishers.Sequence<Array<Int>, Never>.Inner<PagingSubscriber>", module: "OpenCombine",
                    category: .framework,
                    links: [ReportRetainLink(kind: .field, name: "downstream", strength: .strong)]),
            ])
        let fix =
            "end it when its work is done: keep what subscribing returns (an AnyCancellable) and cancel it,"
            + " or have the subscriber cancel the subscription it keeps, or complete the publisher;"
            + " nothing outside holds it now, so nothing can end it"
        #expect(
            path.textLines() == [
                "held only by itself: nothing outside holds it; it and what it holds keep each other alive",
                "  PagingSubscriber.subscription (this subscription)",
                "  → Publishers.Sequence<[Int], Never>.Inner<PagingSubscriber>.downstream → PagingSubscriber (the same object)",
                "fix: " + fix,
            ])
        #expect(path.fix == fix)
        #expect(
            path.summary
                == "held only by itself: PagingSubscriber → Publishers.Sequence<[Int], Never>.Inner<PagingSubscriber>"
                + " → PagingSubscriber (the same object); never cancelled, and nothing outside holds it")
        // Nothing in the app's code to change but where the subscription is made.
        #expect(path.closureToChange == nil)
    }

    @Test func whatCouldNotBeToldIsSaid() {
        let path = ReportRetainPath(
            verdict: .unknown, notes: ["the walk stopped at the time limit without finding a cycle"])
        #expect(
            path.textLines() == [
                "why it is still alive could not be told",
                "  (the walk stopped at the time limit without finding a cycle)",
            ])
    }

    @Test(arguments: [
        ("Sink<Array<String>, Never>", "Sink<[String], Never>"),
        ("Dictionary<String, Array<Optional<Int>>>", "[String: [Int?]]"),
        ("Optional<() -> ()>", "(() -> ())?"),
        ("Set<AnyCancellable>", "Set<AnyCancellable>"),
        ("(Array<String>) -> ()", "([String]) -> ()"),
        ("Result<(Int, Array<Int>), Error>", "Result<(Int, [Int]), Error>"),
    ])
    func typesReadTheWayTheyAreWritten(input: String, expected: String) {
        #expect(ReportRetainPath.displayType(input) == expected)
    }

    @Test func frameworkWrappersAreCutShort() {
        let cycle = ReportRetainPath(
            verdict: .cycle,
            cycle: [
                ReportRetainStep(
                    type: "Model", category: .user, links: [ReportRetainLink(kind: .field, name: "subject")]),
                ReportRetainStep(
                    type: "Conduit<SubscriberTap<Inner<SubscriberTap<Assign<Model, String>>>>>", category: .framework,
                    isSubscription: true, links: [ReportRetainLink(kind: .field, name: "downstream")]),
            ])
        #expect(cycle.textLines()[3] == "  → Conduit<SubscriberTap<Inner<SubscriberTap<…>>>> (this subscription)")
    }

    @Test func itSurvivesTheReportsReaderAndWriter() throws {
        var report = ReportCodingTests.sample
        report.findings[0].retainPath = Self.feedCycle
        let decoded = try DiagnosticsReport.decode(try report.encoded(), source: "memory")
        #expect(decoded.findings[0].retainPath == Self.feedCycle)
        #expect(try FastJSONTests.codableDecoded(report.encoded()) == report)
        #expect(try DiagnosticsReport.decode(FastJSONTests.codableEncoded(report), source: "codable") == report)
    }
}
