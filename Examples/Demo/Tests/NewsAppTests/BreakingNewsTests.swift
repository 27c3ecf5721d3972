import ConcurrencyDiagnostics
import NewsApp
import ReactiveDiagnosticsTesting
import Testing

/// Swift Testing: the test makes the alert stream (diagnosed) and hands it to the banner, whose
/// code takes a plain `AsyncStream<String>` and is unchanged.
@Suite(.diagnosed)
struct BreakingNewsTests {
    @Test func showsTheLatestAlert() async {
        let (alerts, desk) = AsyncStream.makeDiagnosedStream("breaking news", of: String.self)
        let banner = BreakingNewsBanner(alerts: alerts)
        banner.start()
        desk.yield("Swift 6.3 released")
        for _ in 0..<500 where banner.text == nil {
            try? await Task.sleep(for: .milliseconds(10))
        }
        #expect(banner.text == "Swift 6.3 released")
    }
}
