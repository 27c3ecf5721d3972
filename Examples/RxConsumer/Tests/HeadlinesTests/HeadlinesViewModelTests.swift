import Headlines
import ReactiveDiagnosticsTesting
import RxDiagnostics
import Testing

/// Under diagnostics: a subscription still alive at the end of a test fails it, at the line
/// that subscribed, with no change to the app code.
@Suite(.diagnosed)
struct HeadlinesViewModelTests {
    init() {
        RxDiagnosticsHooks.install()
    }

    @Test func refreshShowsTheHeadlines() {
        #expect(RxDiagnosticsHooks.isActive)
        let model = HeadlinesViewModel()
        model.refreshes.onNext(["Swift 6.3 released"])
        #expect(model.headlines == ["Swift 6.3 released"])
    }
}
