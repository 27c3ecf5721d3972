import NewsApp
import ReactiveDiagnosticsTesting
import Testing

/// Swift Testing: the test makes a plain alert stream and hands it to the banner; nothing in the
/// app or the test is diagnosed by hand. The trait follows every task the test starts, the
/// banner's included: one still running at the end fails the test at its `Task {` line, with
/// the `for await` line where it waits.
@Suite(.diagnosed)
struct BreakingNewsTests {
    @Test func showsTheLatestAlert() async {
        let (alerts, desk) = AsyncStream.makeStream(of: String.self)
        let banner = BreakingNewsBanner(alerts: alerts)
        banner.start()
        desk.yield("Swift 6.3 released")
        for _ in 0..<500 where banner.text == nil {
            try? await Task.sleep(for: .milliseconds(10))
        }
        #expect(banner.text == "Swift 6.3 released")
    }
}
