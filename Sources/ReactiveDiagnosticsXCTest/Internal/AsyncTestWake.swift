import Foundation
@_spi(Integration) import ReactiveDiagnostics

/// Wakes the main thread when an async XCTest test's task has ended, on platforms whose XCTest
/// is swift-corelibs-xctest.
///
/// That XCTest runs an async test as a `Task` started from the main thread, then waits for it
/// in `XCTWaiter`: the main run loop runs 100 ms at a time, and the task's end stops it. A stop
/// that arrives just before the run loop starts running is lost, and the test then waits out
/// the 100 ms. Without diagnostics about one async test in 200 pays it; the work diagnostics do
/// inside the test (stacks captured, streams and tasks followed) moves the task's end closer to
/// that moment, and a generated suite of 2,000 async tests paid it about 35 times, 3.5 s of a
/// 5 s run (Docs/Performance.md, `longSuite`).
///
/// While a test runs, one thread of the process watches for the end of a task the test started
/// from the main thread (the engine follows every unstructured task), looking first after half
/// the time the last tests' tasks took to be seen ending (at least 50 µs, at most 2 ms), then
/// less and less often (up to 10 ms); when one has ended it queues an empty block on the main
/// queue. Each look wakes a thread that competes with the test's own on a small machine (most
/// of its cost is that wake-up, not the look): looking first after 50 µs, and again after 50 µs
/// once a task had ended, made about eight a test of a suite of short async tests, most of
/// them while the test was already settling. A run loop that handles a main-queue block
/// returns, so the waiter looks at its expectation again at once. The block does nothing else,
/// and when the stop was not lost it runs at the next drain of the main queue (the test's
/// settle).
///
/// Nothing is watched between tests, and the thread then sleeps; nothing is watched for a
/// disabled engine, which follows no task. On Apple platforms XCTest runs async tests itself
/// and nothing here runs.
final class AsyncTestWake: @unchecked Sendable {
    // Unchecked: `watched`, `generation` and `started` are only touched under `condition`.
    static let shared = AsyncTestWake()

    private let condition = NSCondition()
    private var watched: Watched?
    private var generation = 0
    private var started = false

    private struct Watched {
        var engine: DiagnosticsEngine
        var checkpoint: TestCheckpoint
        /// ``DiagnosticsEngine/mainThreadTaskEnds(of:)`` when the test began.
        var endsBefore: Int
    }

    static let firstPause: TimeInterval = 50e-6
    static let longestPause: TimeInterval = 10e-3
    /// The latest first look: a test whose task ends later is looked at as before.
    static let latestFirstLook: TimeInterval = 2e-3

    /// The first look of a test: half the usual time from a test's start to its task's end
    /// being seen (a moving average), within ``firstPause`` … ``latestFirstLook``.
    static func firstLook(usualEnd: TimeInterval) -> TimeInterval {
        min(max(usualEnd / 2, firstPause), latestFirstLook)
    }

    /// The moving average of the time from a test's start to its task's end being seen, after
    /// one more test whose end was seen after `seen`.
    static func usualEnd(_ usual: TimeInterval, after seen: TimeInterval) -> TimeInterval {
        usual == 0 ? seen : usual * 0.75 + seen * 0.25
    }

    /// Whether a test is being watched (for tests).
    var isWatching: Bool {
        condition.lock()
        defer { condition.unlock() }
        return watched != nil
    }

    /// Watches `checkpoint`'s test until ``stop(_:)`` (one test at a time: XCTest runs tests
    /// of a process one by one).
    func watch(_ checkpoint: TestCheckpoint, of engine: DiagnosticsEngine) {
        #if !canImport(Darwin)
        guard DiagnosticsEngine.seesUnstructuredTasks, engine.isEnabled else { return }
        // Read before the test starts its task: an end between two looks is still seen.
        let ends = engine.mainThreadTaskEnds(of: checkpoint)
        condition.lock()
        watched = Watched(engine: engine, checkpoint: checkpoint, endsBefore: ends)
        generation += 1
        if !started {
            started = true
            let thread = Thread { [self] in run() }
            thread.name = "ReactiveDiagnostics async test wake"
            thread.start()
        }
        condition.signal()
        condition.unlock()
        #endif
    }

    /// Stops watching `checkpoint`'s test (nothing when another test is watched).
    func stop(_ checkpoint: TestCheckpoint) {
        #if !canImport(Darwin)
        condition.lock()
        if watched?.checkpoint == checkpoint {
            watched = nil
            generation += 1
        }
        condition.unlock()
        #endif
    }

    private func run() {
        var seen = (generation: -1, ends: 0)
        var pause = Self.firstPause
        var started = Date()
        var usualEnd: TimeInterval = 0
        var endSeen = false
        while true {
            condition.lock()
            while watched == nil {
                condition.wait()
            }
            let current = watched!
            let generation = generation
            condition.unlock()

            if generation != seen.generation {
                seen = (generation, current.endsBefore)
                pause = Self.firstLook(usualEnd: usualEnd)
                started = Date()
                endSeen = false
            }
            let ends = current.engine.mainThreadTaskEnds(of: current.checkpoint)
            if ends > seen.ends {
                DispatchQueue.main.async {}
                seen.ends = ends
                if !endSeen {
                    endSeen = true
                    usualEnd = Self.usualEnd(usualEnd, after: -started.timeIntervalSinceNow)
                }
            }

            condition.lock()
            if self.generation == generation {
                _ = condition.wait(until: Date(timeIntervalSinceNow: pause))
            }
            condition.unlock()
            pause = min(pause * 2, Self.longestPause)
        }
    }
}
