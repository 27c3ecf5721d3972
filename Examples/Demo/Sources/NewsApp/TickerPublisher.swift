import OpenCombineShim

/// Stock ticker prices, from a hand-written publisher (as found in many code bases).
///
/// The bug breaks the stream grammar `value* (finished | failure)`: when the market closes it
/// finishes, then flushes the last buffered price anyway. Combine's sink silently drops it.
public struct TickerPublisher: Publisher {
    public typealias Output = Int
    public typealias Failure = Never

    public let prices: [Int]

    public init(prices: [Int]) {
        self.prices = prices
    }

    public func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        subscriber.receive(subscription: Subscriptions.empty)
        for price in prices.dropLast() {
            _ = subscriber.receive(price)
        }
        if DemoVariant.fixesApplied {
            // Fixed: the last price first, then the end.
            if let last = prices.last { _ = subscriber.receive(last) }
            subscriber.receive(completion: .finished)
        } else {
            // Bug: finishes, then sends the buffered last price.
            subscriber.receive(completion: .finished)
            if let last = prices.last { _ = subscriber.receive(last) }
        }
    }
}
