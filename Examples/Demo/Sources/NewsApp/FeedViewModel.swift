import OpenCombineShim

/// The front page: headlines and a loading spinner.
///
/// The bug is "the spinner spins forever": `refresh()` subscribes to the live feed, which never
/// completes, so the spinner is never hidden; and the closure captures `self` strongly while
/// the subscription is stored in `self`, so the view model can never be freed either.
public final class FeedViewModel {
    public private(set) var headlines: [String] = []
    public private(set) var isLoading = false
    private let service: NewsService
    private var cancellables = Set<AnyCancellable>()

    public init(service: NewsService) {
        self.service = service
    }

    public func refresh() {
        isLoading = true
        if DemoVariant.fixesApplied {
            // Fixed: take one page (the stream completes) and capture self weakly.
            service.liveHeadlines()
                .first()
                .sink(
                    receiveCompletion: { [weak self] _ in self?.isLoading = false },
                    receiveValue: { [weak self] in self?.headlines = $0 }
                )
                .store(in: &cancellables)
        } else {
            // Bug: the live feed never completes, and `self` is captured strongly by a
            // subscription stored in `self`.
            service.liveHeadlines()
                .sink(
                    receiveCompletion: { _ in self.isLoading = false },
                    receiveValue: { self.headlines = $0 }
                )
                .store(in: &cancellables)
        }
    }
}
