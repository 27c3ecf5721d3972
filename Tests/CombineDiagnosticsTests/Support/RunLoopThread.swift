import Foundation
import Synchronization

/// A thread running its own run loop, for `RunLoop` schedulers and `Timer` publishers (the
/// main run loop does not run under the test runner).
final class RunLoopThread: @unchecked Sendable {
    // Unchecked: `runLoop` and `thread` are written once before `init` returns (behind a semaphore);
    // `stopped` is atomic.
    private(set) var runLoop: RunLoop!
    private(set) var thread: Thread!
    private let stopped = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    init() {
        let ready = DispatchSemaphore(value: 0)
        let loop = Thread { [self] in
            self.thread = Thread.current
            runLoop = RunLoop.current
            // A distant timer keeps the run loop from returning at once when nothing else is scheduled.
            let keepAlive = Timer(timeInterval: 3600, repeats: true) { _ in }
            runLoop.add(keepAlive, forMode: .default)
            ready.signal()
            while !stopped.load(ordering: .relaxed) {
                _ = runLoop.run(mode: .default, before: Date(timeIntervalSinceNow: 0.01))
            }
            // This object holds the thread and the thread holds this block, which holds this
            // object: let go of the thread (and the timer its run loop keeps) once stopped, or the
            // three outlive the test (LeakSanitizer in Tools/test.sh).
            keepAlive.invalidate()
            self.thread = nil
            finished.signal()
        }
        loop.start()
        ready.wait()
    }

    /// Stops the loop and waits for the thread to end.
    func stop() {
        stopped.store(true, ordering: .relaxed)
        _ = finished.wait(timeout: .now() + 2)
    }
}
