import CombineDiagnostics
import NewsApp
import ReactiveDiagnosticsXCTest
import XCTest

/// XCTest, with the base class: every test is checked after `tearDown()`, and every Combine
/// subscription in the process is tracked (global instrumentation).
final class FeedViewModelTests: DiagnosedTestCase {
    override class func setUp() {
        super.setUp()
        CombineInstrumentation.start()
    }

    func testRefreshShowsTheHeadlines() {
        let viewModel = FeedViewModel(service: NewsService())
        viewModel.refresh()
        XCTAssertEqual(viewModel.headlines, ["Swift 6.3 released", "Combine on Linux"])
    }
}
