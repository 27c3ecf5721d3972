import OpenCombineShim

/// Shows an article's image, with a placeholder while it downloads.
public final class ImageLoader {
    public private(set) var image = "placeholder"
    public private(set) var thumbnail = ""
    private let service: NewsService
    private var cancellables = Set<AnyCancellable>()

    public init(service: NewsService) {
        self.service = service
    }

    /// Starts downloading the image; the placeholder shows meanwhile.
    public func load(_ url: String) {
        if DemoVariant.fixesApplied {
            service.image(at: url)
                .sink { [weak self] in self?.image = $0 }
                .store(in: &cancellables)
        } else {
            // Bug: the AnyCancellable is thrown away, which cancels the download at once:
            // the placeholder stays forever ("I forgot .store(in:)").
            _ = service.image(at: url).sink { [weak self] in self?.image = $0 }
        }
    }

    /// Keeps `thumbnail` up to date with the newest headline's thumbnail.
    public func bindThumbnail(to headlines: AnyPublisher<[String], Never>) {
        let names = headlines.map { "thumb-\($0.first ?? "none")" }
        if DemoVariant.fixesApplied {
            names
                .sink { [weak self] in self?.thumbnail = $0 }
                .store(in: &cancellables)
        } else {
            // Bug: assign(to:on: self) keeps `self` strongly, and the subscription is stored in
            // `self`: a retain cycle on a stream that never ends.
            names
                .assign(to: \.thumbnail, on: self)
                .store(in: &cancellables)
        }
    }
}
