import CombineDiagnostics
import NewsApp
import ReactiveDiagnosticsTesting
import Testing

/// Swift Testing, with the trait on the suite and global instrumentation started per test.
@Suite(.diagnosed)
struct ImageLoaderTests {
    init() {
        CombineInstrumentation.start()
    }

    @Test func showsAPlaceholderWhileLoading() {
        let loader = ImageLoader(service: NewsService())
        loader.load("https://example.com/cover.png")
        #expect(loader.image == "placeholder")
    }

    @Test func thumbnailFollowsTheNewestHeadline() {
        let service = NewsService()
        let loader = ImageLoader(service: service)
        loader.bindThumbnail(to: service.liveHeadlines())
        service.publish(["Breaking news"])
        #expect(loader.thumbnail == "thumb-Breaking news")
    }
}
