// The catalog of finding kinds: the one list the engine (default severities, lifetime kinds),
// the tool (SARIF rules, `--fail-on` validation) and the docs (Docs/Findings.md, checked against
// it by a test) agree on. Adding a kind is adding an entry here.

extension FindingCatalog {
    /// Every kind, in the order Docs/Findings.md lists them.
    public static let kinds: [FindingKindInfo] = [
        FindingKindInfo(
            name: "valueAfterTermination", group: .grammar, defaultSeverity: .error, definedBy: nil,
            summary: "A stream delivered a value after it had finished or failed.",
            description:
                "A stream delivered a value after it had finished or failed. The grammar of every stream is `next* (finished | failure)`: nothing may follow the terminal event. Combine's sink and RxSwift's observers silently drop such values, so the bug surfaces far away.",
            causes:
                "A hand-written publisher or `Observable.create` that flushes a buffer after completing; a subject sent to after `send(completion:)`; two code paths that both finish a stream; an `AsyncStream` continuation yielding after `finish()` (reported by a diagnosed stream's continuation, once per stream).",
            fix: "Send the last values before the terminal event; guard hand-written emitters with a `finished` flag."),
        FindingKindInfo(
            name: "duplicateTermination", group: .grammar, defaultSeverity: .error, definedBy: nil,
            summary: "A second finished or failure event arrived after the first.",
            description: "A second finished or failure event arrived after the first.",
            causes:
                "Completion handlers reached twice (a timeout and a response both completing a stream); error paths that also fall through to the success path.",
            fix: "Make the terminal event the last thing a producer does, exactly once."),
        FindingKindInfo(
            name: "eventBeforeSubscription", group: .grammar, defaultSeverity: .error, definedBy: nil,
            summary: "A value or a terminal event reached a subscriber before its subscription (Reactive Streams 1.9).",
            description:
                "A value or a terminal event reached a subscriber before its subscription (Reactive Streams 1.9).",
            causes:
                "Hand-written publishers that emit in `receive(subscriber:)` before calling `subscriber.receive(subscription:)`.",
            fix: "Hand over the subscription first, then emit when demand arrives."),
        FindingKindInfo(
            name: "duplicateSubscription", group: .grammar, defaultSeverity: .error, definedBy: nil,
            summary:
                "A subscriber received a second subscription (Reactive Streams 2.5); it must cancel the second one.",
            description:
                "A subscriber received a second subscription (Reactive Streams 2.5); it must cancel the second one.",
            causes: "The same subscriber object subscribed to two publishers, or re-subscribed to one.",
            fix: "Create one subscriber per subscription."),
        FindingKindInfo(
            name: "demandExceeded", group: .grammar, defaultSeverity: .error, definedBy: nil,
            summary: "A publisher delivered more values than its subscriber requested (Reactive Streams 1.1).",
            description:
                "A publisher delivered more values than its subscriber requested (Reactive Streams 1.1). Demand returned from `receive(_:)` counts; `.unlimited` is unlimited.",
            causes:
                "Hand-written publishers and subscriptions that ignore `request(_:)`; buffering operators written by hand.",
            fix: "Keep a demand counter in the subscription; deliver only while it is positive."),
        FindingKindInfo(
            name: "invalidDemand", group: .grammar, defaultSeverity: .error, definedBy: nil,
            summary: "A subscriber requested zero or fewer values (Reactive Streams 3.9).",
            description: "A subscriber requested zero or fewer values (Reactive Streams 3.9).",
            causes:
                "Subscribers computing demand from a count that can be zero; `request(.max(0))`. OpenCombine's own debug assertion then stops the process.",
            fix: "Request only positive demand; request nothing instead of zero."),
        FindingKindInfo(
            name: "concurrentDelivery", group: .grammar, defaultSeverity: .error, definedBy: nil,
            summary:
                "Two threads delivered signals to one subscriber at the same time (Reactive Streams 1.3: signals must be serial).",
            description:
                "Two threads delivered signals to one subscriber at the same time (Reactive Streams 1.3: signals must be serial). Both threads and both stacks are shown: the event's, and the other thread's delivery. The other thread is named from the moment of the collision (the delivering thread's kernel id is what claims a delivery); its stack is added when its delivery ends, whichever of the two threads is faster. A delivery that arrived on another thread than the previous one stays claimed a little after its downstream returned, so that an emitter whose own locks line the two threads up is still caught ([thread-hop probes](Configuration.md#thread-hop-probes)); a serial source that hops threads never is. One finding per collision.",
            causes:
                "Subjects sent to from several queues; callbacks from a thread pool forwarded into one subject; `merge` written by hand without a lock; an RxSwift `Observable.create` whose closure calls `onNext` from two queues (RxSwift's \"Synchronization anomaly\").",
            fix: "Funnel sends through one serial queue (`receive(on:)`), or protect the producer with a lock."),
        FindingKindInfo(
            name: "concurrentIteration", group: .grammar, defaultSeverity: .error, definedBy: nil,
            summary:
                "Two tasks iterated one single-consumer async sequence (an `AsyncStream`) at once: each element goes to one of them, and a task left waiting may never resume.",
            description:
                "Two tasks iterated one single-consumer async sequence at once: `AsyncStream`, `AsyncThrowingStream`, or a type declared `SingleConsumerAsyncSequence`. Each element goes to only one of the waiting tasks, and a task left waiting when the stream ends may never resume ([swiftlang/swift#71412](https://github.com/swiftlang/swift/issues/71412)). Both iterations' stacks are shown. Found on streams made with `AsyncStream.makeDiagnosedStream` and on `.diagnosed()` sequences.",
            causes:
                "One stream stored in a property and iterated by every screen (or every `Task`) that observes it; a broadcast expected from `AsyncStream`, which has none.",
            fix: "Give each consumer a stream of its own (one continuation per observer), or fan out explicitly."),
        FindingKindInfo(
            name: "reentrantDelivery", group: .grammar, defaultSeverity: .warning, definedBy: nil,
            summary:
                "A delivery started while the same subscriber was still handling a previous one on the same thread: RxSwift's \"Reentrancy anomaly was detected\".",
            description:
                "A delivery started while the same subscriber was still handling a previous one on the same thread: RxSwift's \"Reentrancy anomaly was detected\".",
            causes:
                "A sink that sends into its own upstream subject (feedback loops), synchronous cycles between view models.",
            fix: "Break the cycle, or defer the inner send (`DispatchQueue.main.async`, `receive(on:)`)."),
        FindingKindInfo(
            name: "requestAfterTermination", group: .grammar, defaultSeverity: .warning, definedBy: nil,
            summary: "Demand was requested after the stream terminated.",
            description: "Demand was requested after the stream terminated.",
            causes:
                "Subscribers that request more in `receive(completion:)`, or keep a stale subscription; an async iterator polled with `next()` after it returned `nil` (a `.diagnosed()` sequence).",
            fix: "Drop the subscription when the stream completes."),
        FindingKindInfo(
            name: "valueAfterCancel", group: .grammar, defaultSeverity: .info, definedBy: nil,
            summary: "A value arrived after the subscriber cancelled.",
            description:
                "A value arrived after the subscriber cancelled. Values in flight are legal (Reactive Streams 1.8), so this is information, never a failure; a producer that keeps sending long after cancel is wasting work.",
            causes: "Producers that do not check for cancellation between values.",
            fix: "Check `isCancelled` (or the subscription's state) in producer loops."),
        FindingKindInfo(
            name: "contractViolation", group: .contract, defaultSeverity: .error, definedBy: nil,
            summary:
                "A stream broke its declared `StreamContract`: too many or too few values, a termination it must not have, a failure it must not have.",
            description:
                "A stream broke its declared `StreamContract`: too many or too few values, a termination it must not have, a failure it must not have. `details` names the rule, the expected and the actual.",
            causes:
                "A request stream delivering twice (a retry that re-emits), a state stream completing when its source completes, an API that fails where it promised not to.",
            fix: "Fix the producer, or declare the contract the stream really has."),
        FindingKindInfo(
            name: "wrongThread", group: .contract, defaultSeverity: .error, definedBy: nil,
            summary:
                "A value, a completion, a scheduled action, a callback or a notification ran on a thread its expectation rules out — almost always: UI state updated off the main queue.",
            description:
                "A value, a completion, a scheduled action, a callback or a notification ran on a thread its expectation rules out — almost always: UI state updated off the main queue. \"Main\" is the main queue, not the main thread.",
            causes:
                "`subscribe(on:)` where `receive(on:)` was meant; network callbacks forwarded straight into a store; `DispatchQueue.global().async` around UI work.",
            fix:
                "Hop to the main queue before touching UI state (`receive(on: DispatchQueue.main)`, `DispatchQueue.main.async`)."
        ),
        FindingKindInfo(
            name: "leakedSubscription", group: .lifetime, defaultSeverity: .error, definedBy: nil,
            summary:
                "A subscription was still alive when its test ended (after the settle time): it never completed, failed or was cancelled.",
            description:
                "A subscription was still alive when its test ended (after the settle time): it never completed, failed or was cancelled. Usually a retain cycle, or a cancellable stored in an object that outlives the test.",
            causes:
                "A sink capturing `self` strongly while its cancellable is stored in `self`; `assign(to:on: self)`; a never-ending stream subscribed without a matching cancel; a `cancellables` property of an XCTestCase not cleared in `tearDown()`; in RxSwift, `subscribe(onNext: { self.… }).disposed(by: self.disposeBag)` on a subject `self` owns, or an `Observable.interval` in a bag that outlives the screen (found with no code change by `RxDiagnosticsHooks.install()`, labelled `subscribe(onNext:)`, see [RxSwift](RxSwift.md)); in Swift Concurrency, a `for await` loop over a stream nobody finishes, in a task nobody cancels (an *iteration* of a diagnosed stream or sequence, shown with where it iterates and where the stream was made: see [Swift Concurrency](Concurrency.md)).",
            fix:
                "Capture `[weak self]`, use `assign(to: &$property)`, complete the stream (`first()`, `prefix`, `take(1)`), cancel or dispose on teardown."
        ),
        FindingKindInfo(
            name: "leakedResource", group: .lifetime, defaultSeverity: .error, definedBy: nil,
            summary:
                "A tracked resource of a custom kind (`engine.track(.named(\"socket\"), label:)`) was still alive at the end of its test.",
            description:
                "A tracked resource of a custom kind (`engine.track(.named(\"socket\"), label:)`) was still alive at the end of its test.",
            causes:
                "Whatever the resource is: a socket, a file handle, a session not closed. In Swift Concurrency (resource kind `task`): a task still running at the end of its test — a `Task.diagnosed` loop nobody cancels (the message says whether it outlived its owner), or any `Task { … }` or `Task.detached { … }` the test or the app started: at its `Task {` line, with where it is suspended (Linux; elsewhere a count by the test glue, without a stack).",
            fix: "Close it before the test ends."),
        FindingKindInfo(
            name: "prematureCancellation", group: .lifetime, defaultSeverity: .error, definedBy: nil,
            summary:
                "A stream was cancelled before it produced anything because its cancellable was released in the function that subscribed: the classic \"I forgot `.store(in:)`\".",
            description:
                "A stream was cancelled before it produced anything because its cancellable was released in the function that subscribed: the classic \"I forgot `.store(in:)`\". Cancellables released elsewhere (their owner going away mid-request) are not reported, nor are those a test function keeps in a variable until a later line of its own (the end of the test, of a `do` block, of `withExtendedLifetime`: a test checking that nothing arrives); telling that case apart needs file:line, from `llvm-symbolizer`.",
            causes:
                "`_ = publisher.sink { … }`; a cancellable in a local variable that goes out of scope before the asynchronous result arrives.",
            fix: "Store the cancellable: `.store(in: &cancellables)`."),
        FindingKindInfo(
            name: "uncancelledTimer", group: .lifetime, defaultSeverity: .error, definedBy: nil,
            summary: "A repeating action or timer was still active at the end of its test.",
            description: "A repeating action or timer was still active at the end of its test.",
            causes:
                "A timer whose closure captures its owner strongly (a cycle nothing breaks), `stop()` methods that forget to cancel, `Timer.publish(...).autoconnect()` never cancelled, `Observable.interval` never disposed.",
            fix: "Cancel timers when their screen goes away; capture `[weak self]` in timer closures."),
        FindingKindInfo(
            name: "pendingAction", group: .lifetime, defaultSeverity: .error, definedBy: nil,
            summary: "Work scheduled on a diagnostic scheduler had still not run at the end of its test.",
            description: "Work scheduled on a diagnostic scheduler had still not run at the end of its test.",
            causes:
                "Delayed actions (`schedule(after:)`, debounce, retry back-off) the test never waited for; work queued on a suspended or blocked queue.",
            fix: "Advance a test scheduler, wait for the work, or cancel it."),
        FindingKindInfo(
            name: "callbackNeverCalled", group: .lifetime, defaultSeverity: .error, definedBy: nil,
            summary:
                "An effect (a function handed a completion callback) never called back by the end of its test, or released its callback without calling it.",
            description:
                "An effect (a function handed a completion callback) never called back by the end of its test, or released its callback without calling it.",
            causes:
                "Code paths that return early without calling the completion handler; async work cancelled silently; a `withDiagnosedContinuation` whose callback never fires (resource kind `continuation`: its task is suspended forever).",
            fix: "Call the completion handler on every path (`defer` helps), or report cancellation explicitly."),
        FindingKindInfo(
            name: "callbackCalledTwice", group: .contract, defaultSeverity: .error, definedBy: nil,
            summary: "A one-shot callback was called more than once.",
            description: "A one-shot callback was called more than once.",
            causes:
                "Both a timeout and a response completing one request; retries that re-invoke the original completion; a continuation resumed twice (with `withDiagnosedContinuation` the second resume is dropped instead of stopping the process).",
            fix: "Guard completion handlers with a \"completed\" flag, or make sure only one path completes."),
        FindingKindInfo(
            name: "observerNotRemoved", group: .lifetime, defaultSeverity: .error, definedBy: nil,
            summary:
                "A block-based `NotificationCenter` observer was still registered at the end of its test; its block (and everything it captures) stays alive.",
            description:
                "A block-based `NotificationCenter` observer was still registered at the end of its test; its block (and everything it captures) stays alive. Grouped per notification name and site.",
            causes:
                "Tokens from `addObserver(forName:object:queue:using:)` dropped instead of passed to `removeObserver`; managers that never remove their observers.",
            fix: "Keep the token and remove it when the owner goes away."),
        FindingKindInfo(
            name: "longAction", group: .scheduler, defaultSeverity: .warning, definedBy: nil,
            summary:
                "A scheduled action ran longer than the threshold (`REACTIVE_DIAGNOSTICS_LONG_ACTION_MS`, default 250 ms), blocking its queue — on the main queue, a frozen UI.",
            description:
                "A scheduled action ran longer than the threshold (`REACTIVE_DIAGNOSTICS_LONG_ACTION_MS`, default 250 ms), blocking its queue — on the main queue, a frozen UI.",
            causes:
                "Synchronous I/O, JSON decoding or image processing on the main queue or a serial queue other work waits for.",
            fix: "Move the work off the queue, or split it."),
        FindingKindInfo(
            name: "unhandledError", group: .rxSwift, defaultSeverity: .error, definedBy: "RxDiagnostics",
            summary:
                "An RxSwift subscription without `onError` received an error; with `RxDiagnosticsHooks.install()` every closure-based `subscribe` is covered, at its `subscribe` line.",
            description:
                "An RxSwift subscription without an `onError` handler received an error: RxSwift only prints it in debug builds, and the failure is lost.",
            causes:
                "`subscribe(onNext:)` on a stream that can fail; a `flatMap` whose inner stream fails; `bind(to:)` on a failable stream.",
            fix:
                "Handle the error (`subscribe(onNext:onError:)`), or make the stream infallible (`catchAndReturn`, `asDriver(onErrorJustReturn:)`)."
        ),
    ]
}
