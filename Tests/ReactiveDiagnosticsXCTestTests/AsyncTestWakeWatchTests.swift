import ReactiveDiagnostics
import Testing

@testable import ReactiveDiagnosticsXCTest

/// What the async-test wake watches, and when it first looks.
@Suite("XCTest: what the async-test wake watches")
struct AsyncTestWakeWatchTests {
    /// A disabled engine follows no task, so no end could ever be seen: nothing is watched
    /// (a looking thread would only cost the switched-off run its time).
    @Test func aDisabledEngineIsNotWatched() {
        var configuration = Configuration()
        configuration.isEnabled = false
        let engine = DiagnosticsEngine(configuration: configuration)
        let wake = AsyncTestWake()
        let checkpoint = engine.beginTest(named: "AsyncTestWakeWatchTests/disabled", serial: true)
        wake.watch(checkpoint, of: engine)
        #expect(!wake.isWatching)
    }

    @Test(.enabled(if: DiagnosticsEngine.seesUnstructuredTasks && !isDarwin))
    func anEnabledEngineIsWatchedUntilItsTestStops() {
        let engine = DiagnosticsEngine(configuration: Configuration())
        let wake = AsyncTestWake()
        let checkpoint = engine.beginTest(named: "AsyncTestWakeWatchTests/enabled", serial: true)
        wake.watch(checkpoint, of: engine)
        #expect(wake.isWatching)
        wake.stop(checkpoint)
        #expect(!wake.isWatching)
    }

    /// The first look comes after half the usual time to a task's end being seen, never
    /// sooner than 50 µs nor later than 2 ms; the usual time follows the tests as they go.
    @Test func theFirstLookFollowsHowLongTheLastTestsTook() {
        #expect(AsyncTestWake.firstLook(usualEnd: 0) == AsyncTestWake.firstPause)
        #expect(abs(AsyncTestWake.firstLook(usualEnd: 600e-6) - 300e-6) < 1e-12)
        #expect(AsyncTestWake.firstLook(usualEnd: 1) == AsyncTestWake.latestFirstLook)
        #expect(AsyncTestWake.usualEnd(0, after: 800e-6) == 800e-6)
        #expect(abs(AsyncTestWake.usualEnd(400e-6, after: 800e-6) - 500e-6) < 1e-12)
    }
}

#if canImport(Darwin)
private let isDarwin = true
#else
private let isDarwin = false
#endif
