import CombineDiagnostics
import NewsApp
import ReactiveDiagnosticsTesting
import Testing

/// Swift Testing: one stage diagnosed by hand, checking a hand-written publisher's grammar.
@Suite(.diagnosed)
struct TickerTests {
    @Test func receivesThePrices() {
        var prices: [Int] = []
        let subscription = TickerPublisher(prices: [101, 102, 103])
            .diagnosed("ticker")
            .sink { prices.append($0) }
        #expect(prices.starts(with: [101, 102]))
        subscription.cancel()
    }
}
