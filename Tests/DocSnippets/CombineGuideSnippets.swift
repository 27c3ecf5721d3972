// The blocks of Docs/Combine.md, verbatim (see this folder's README.md).

import CombineDiagnostics
import CombineSchedulers
import Foundation
import OpenCombineShim
import Testing

/// Docs/Combine.md's snippets.
enum CombineGuide {}

// "A diagnosed pipeline"
extension CombineGuide {
    final class FeedScreen {
        var items: [Item] = []
        var cancellables: Set<AnyCancellable> = []

        func load(api: FeedAPI) {
            api.feed()                                           // AnyPublisher<[Item], APIError>
                .diagnosed("feed", contract: .single)            // one value, then completion
                .receive(on: DispatchQueue.main)
                .expectDelivery(on: .mainQueue, "feed UI")       // values must arrive on the main queue
                .replaceError(with: [])
                .sink { [weak self] in self?.items = $0 }
                .store(in: &cancellables)
        }
    }
}

// "Checking a test"
extension CombineGuide {
    struct CheckpointByHand {
        @Test func refreshDoesNotLeak() {
            let engine = DiagnosticsEngine.shared
            let checkpoint = engine.beginTest(named: "FeedTests.refreshDoesNotLeak", serial: false)
            TestIdentity.$current.withValue(checkpoint.test) {
                let model = FeedViewModel(api: .mock)
                model.refresh()
            }
            let outcome = engine.finishTest(checkpoint)       // settles, then records what is still alive
            for finding in outcome.failures {
                Issue.record(Comment(rawValue: engine.describe(finding)))
            }
        }
    }
}

// "Global instrumentation"
extension CombineGuide {
    @Suite(.serialized) struct FeedViewModelTests {
        @Test func refresh() {
            let instrumentation = CombineInstrumentation.start()   // DiagnosticsEngine.shared
            defer { instrumentation.stop() }
            let model = FeedViewModel(api: .mock)
            model.refresh()
            // … and the checkpoint, as above …
        }
    }
}

// "A diagnostic scheduler"
extension CombineGuide {
    static func searchInTheApp(api: SearchAPI) -> SearchViewModel {
        // In the app, or a debug build: UI work off the main queue is a finding.
        let ui = DispatchQueue.main.diagnosed("ui", expecting: .mainQueue)
        let model = SearchViewModel(search: api.search, scheduler: ui.eraseToAnyScheduler())
        return model
    }

    static func searchInATest() {
        // In a test: deterministic time, and a look at what is still scheduled.
        let clock = DispatchQueue.test
        let scheduler = clock.diagnosed("search")
        let model = SearchViewModel(search: { Just(["\($0)!"]).eraseToAnyPublisher() },
                                    scheduler: scheduler.eraseToAnyScheduler())
        model.query = "combine"
        clock.advance(by: .milliseconds(300))
        #expect(scheduler.summary.pending == 0 && scheduler.summary.activeRepeating == 0)
    }
}
