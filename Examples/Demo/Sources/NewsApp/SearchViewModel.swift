import Dispatch
import OpenCombineShim

/// Search as you type: queries in, results out, for the results list on screen.
public final class SearchViewModel {
    private let results = CurrentValueSubject<[String], Never>([])
    private let service: NewsService
    private var cancellables = Set<AnyCancellable>()

    public init(service: NewsService) {
        self.service = service
    }

    /// The results the list shows: they must arrive on the main queue.
    public var resultsPublisher: AnyPublisher<[String], Never> {
        results.eraseToAnyPublisher()
    }

    public func bind(queries: AnyPublisher<String, Never>) {
        let searches = queries.flatMap(maxPublishers: .max(1)) { [service] in service.search($0) }
        if DemoVariant.fixesApplied {
            // Fixed: receive(on:) moves the results to the main queue.
            searches
                .receive(on: DispatchQueue.main)
                .sink { [weak self] in self?.results.send($0) }
                .store(in: &cancellables)
        } else {
            // Bug: subscribe(on:) only moves the *subscription* to a background queue; results
            // still arrive wherever the network delivers them.
            searches
                .subscribe(on: DispatchQueue.global())
                .sink { [weak self] in self?.results.send($0) }
                .store(in: &cancellables)
        }
    }
}
