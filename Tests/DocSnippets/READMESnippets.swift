// The blocks of README.md, verbatim (see this folder's README.md).

import CombineDiagnostics
import EffectDiagnostics
import Foundation
import OpenCombineShim
import ReactiveDiagnosticsTesting
import ReactiveDiagnosticsXCTest
import Testing

/// README.md's snippets.
enum READMEGuide {}

// "Swift Testing — one trait"
extension READMEGuide {
    @Suite(.diagnosed)
    struct FeedViewModelTests {
        init() { CombineInstrumentation.start() }          // check and count every subscription

        @Test func refreshShowsTheHeadlines() {
            let viewModel = FeedViewModel(service: .fake)
            viewModel.refresh()
            #expect(viewModel.headlines == ["Swift 6.3 released"])
        }                                                   // a subscription left alive fails the test here
    }
}

// "XCTest — one base class"
extension READMEGuide {
    enum WithXCTest {
        final class FeedViewModelTests: DiagnosedTestCase { /* … */ }
    }
}

// "Narrower tools for one pipeline, one scheduler, one effect"
extension READMEGuide {
    final class ArticlesScreen {
        var cancellables: Set<AnyCancellable> = []
        func show(_ articles: [String]) {}

        func start(api: ArticlesAPI, store: SettingsStore) {
            api.articles()
                .diagnosed("refresh", contract: StreamContract(values: 1...1, termination: .required))
                .expectDelivery(on: .mainQueue, "articles list")
                .sink { [weak self] in self?.show($0) }
                .store(in: &cancellables)

            let clock = ClockViewModel(scheduler: DispatchQueue.main.diagnosed("clock", expecting: .mainQueue))

            DiagnosedEffect<Action>("load settings") { send in api.loadSettings { send(.loaded($0)) } }
                .run(expecting: .mainQueue) { store.send($0) }

            withExtendedLifetime(clock) {}
        }
    }
}
