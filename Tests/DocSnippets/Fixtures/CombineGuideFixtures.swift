import CombineSchedulers
import Foundation
import OpenCombineShim

// Stand-ins for the app code Docs/Combine.md's snippets use.
extension CombineGuide {
    struct Item: Equatable, Sendable {
        var title: String
    }

    struct APIError: Error, Sendable {}

    struct FeedAPI: Sendable {
        var feed: @Sendable () -> AnyPublisher<[Item], APIError>
        static let mock = FeedAPI { Just([Item(title: "Swift 6.3 released")]).setFailureType(to: APIError.self).eraseToAnyPublisher() }
    }

    final class FeedViewModel {
        private(set) var items: [Item] = []
        private let api: FeedAPI
        private var cancellable: AnyCancellable?

        init(api: FeedAPI) { self.api = api }

        func refresh() {
            cancellable = api.feed()
                .replaceError(with: [])
                .sink { [weak self] in self?.items = $0 }
        }
    }

    struct SearchAPI {
        func search(_ query: String) -> AnyPublisher<[String], Never> { Just([query]).eraseToAnyPublisher() }
    }

    /// Debounces its query on `scheduler`, then searches.
    final class SearchViewModel {
        @Published var query = ""
        private(set) var results: [String] = []
        private var cancellable: AnyCancellable?

        init(search: @escaping (String) -> AnyPublisher<[String], Never>, scheduler: AnySchedulerOf<DispatchQueue>) {
            cancellable = $query
                .debounce(for: .milliseconds(300), scheduler: scheduler)
                .map(search)
                .switchToLatest()
                .sink { [weak self] in self?.results = $0 }
        }
    }
}
