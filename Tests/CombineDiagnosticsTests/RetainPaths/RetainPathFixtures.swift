import CombineDiagnostics
import OpenCombineShim

/// A news feed the view models below subscribe to; it never completes.
final class HeadlineFeed {
    let headlines = PassthroughSubject<[String], Never>()
}

/// The classic leak: `sink { self… }` stored in the owner's own `Set<AnyCancellable>`.
final class StrongSelfViewModel {
    static let closureLine = #line + 6
    private(set) var headlines: [String] = []
    private var cancellables = Set<AnyCancellable>()

    init(feed: HeadlineFeed) {
        feed.headlines
            .sink { self.headlines = $0 }
            .store(in: &cancellables)
    }
}

/// The same through a `.diagnosed()` stage.
final class DiagnosedStrongSelfViewModel {
    static let closureLine = #line + 7
    private(set) var headlines: [String] = []
    private var cancellables = Set<AnyCancellable>()

    init(feed: HeadlineFeed, engine: DiagnosticsEngine) {
        feed.headlines
            .diagnosed("headlines", engine: engine)
            .sink { self.headlines = $0 }
            .store(in: &cancellables)
    }
}

/// `assign(to:on: self)`: the `Assign` subscriber holds its object strongly.
final class AssignToSelfViewModel {
    var title = ""
    private var cancellables = Set<AnyCancellable>()

    init(titles: PassthroughSubject<String, Never>) {
        titles
            .assign(to: \.title, on: self)
            .store(in: &cancellables)
    }
}

/// A cycle through a second object: the view model holds its service, the service holds
/// the subscription, and the subscription's closure holds the view model.
final class ServiceCycleViewModel {
    static let closureLine = #line + 8
    let service: FeedService
    private(set) var count = 0

    init(service: FeedService) {
        self.service = service
        service.feed.headlines
            .map(\.count)
            .sink { self.count = $0 }
            .store(in: &service.cancellables)
    }
}

/// The service of ``ServiceCycleViewModel``.
final class FeedService {
    let feed = HeadlineFeed()
    var cancellables = Set<AnyCancellable>()
}

/// Captures itself weakly: no cycle, and the subscription ends with the view model.
final class WeakSelfViewModel {
    private(set) var headlines: [String] = []
    private var cancellables = Set<AnyCancellable>()

    init(feed: HeadlineFeed) {
        feed.headlines
            .sink { [weak self] in self?.headlines = $0 }
            .store(in: &cancellables)
    }
}

/// A global that keeps subscriptions for the life of the process: no cycle, the holder is
/// outside.
nonisolated(unsafe) var retainPathKeeper = Set<AnyCancellable>()

/// Keeps its subscription in ``retainPathKeeper``.
final class GloballyKeptViewModel {
    private(set) var headlines: [String] = []

    init(feed: HeadlineFeed) {
        feed.headlines
            .sink { [weak self] in self?.headlines = $0 }
            .store(in: &retainPathKeeper)
    }
}

/// Keeps its subscription in memory it allocated itself: no Swift object and no global holds
/// it, so no holder can be named.
final class UnsafelyKeptViewModel {
    /// The memory that holds the subscription; ``release()`` frees it.
    nonisolated(unsafe) static let storage = UnsafeMutablePointer<AnyCancellable>.allocate(capacity: 1)
    private(set) var headlines: [String] = []

    init(feed: HeadlineFeed) {
        Self.storage.initialize(to: feed.headlines.sink { [weak self] in self?.headlines = $0 })
    }

    /// Cancels and frees the subscription.
    static func release() {
        storage.pointee.cancel()
        storage.deinitialize(count: 1)
    }
}

/// A subscriber of the app's own that keeps its subscription and asks for one value at a time,
/// subscribed with `subscribe(_:)`, which returns no cancellable: when nobody asks for the rest,
/// the subscription and the subscriber hold each other and nothing outside holds either.
final class PagingSubscriber: Subscriber {
    typealias Input = Int
    typealias Failure = Never

    private var subscription: (any Subscription)?
    private(set) var received: [Int] = []

    func receive(subscription: any Subscription) {
        self.subscription = subscription
        subscription.request(.max(1))
    }

    func receive(_ input: Int) -> Subscribers.Demand {
        received.append(input)
        return .none
    }

    func receive(completion: Subscribers.Completion<Never>) {
        subscription = nil
    }

    /// Ends the subscription (what the app forgot to do).
    func cancel() {
        subscription?.cancel()
        subscription = nil
    }
}
