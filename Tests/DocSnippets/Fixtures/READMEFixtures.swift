import Foundation
import OpenCombineShim

// Stand-ins for the app code README.md's snippets use.
extension READMEGuide {
    struct FeedService: Sendable {
        var headlines: @Sendable () -> AnyPublisher<[String], Never>
        static let fake = FeedService { Just(["Swift 6.3 released"]).eraseToAnyPublisher() }
    }

    final class FeedViewModel {
        private(set) var headlines: [String] = []
        private let service: FeedService
        private var cancellable: AnyCancellable?

        init(service: FeedService) { self.service = service }

        func refresh() {
            cancellable = service.headlines().sink { [weak self] in self?.headlines = $0 }
        }
    }

    struct ArticlesAPI: Sendable {
        func articles() -> AnyPublisher<[String], Never> { Just(["Swift 6.3 released"]).eraseToAnyPublisher() }
        func loadSettings(_ completion: @escaping @Sendable ([String: String]) -> Void) { completion([:]) }
    }

    enum Action: Sendable { case loaded([String: String]) }

    final class SettingsStore: Sendable {
        func send(_ action: Action) {}
    }

    final class ClockViewModel<S: Scheduler> {
        let scheduler: S
        init(scheduler: S) { self.scheduler = scheduler }
    }
}
