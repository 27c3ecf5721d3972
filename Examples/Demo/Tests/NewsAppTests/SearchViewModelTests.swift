import CombineDiagnostics
import Foundation
import NewsApp
import OpenCombineShim
import ReactiveDiagnosticsTesting
import Testing

/// Swift Testing: the test states what the UI needs, results on the main queue, and subscribes
/// from the main actor as the screen would.
@Suite(.diagnosed)
struct SearchViewModelTests {
    @MainActor
    @Test func typingShowsResults() async {
        let viewModel = SearchViewModel(service: NewsService())
        // The text field's current text: a late subscriber still gets it.
        let queries = CurrentValueSubject<String, Never>("swift")
        let received = Received()
        let subscription = viewModel.resultsPublisher
            .expectDelivery(on: .mainQueue, "search results")
            .sink { @Sendable in received.last = $0 }  // not main-actor isolated: it may run anywhere
        viewModel.bind(queries: queries.eraseToAnyPublisher())
        for _ in 0..<500 where received.last.isEmpty {
            try? await Task.sleep(for: .milliseconds(10))
        }
        #expect(received.last == ["swift: first result", "swift: second result"])
        subscription.cancel()
    }
}

/// The latest value a sink saw, from any queue.
final class Received: @unchecked Sendable {
    private let lock = NSLock()
    private var value: [String] = []

    var last: [String] {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}
