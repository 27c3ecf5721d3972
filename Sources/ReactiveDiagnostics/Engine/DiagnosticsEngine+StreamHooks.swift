import CReactiveDiagnostics
import Dispatch
import Foundation
import Synchronization
import _ReactiveDiagnosticsSupport

extension DiagnosticsEngine {
    /// Whether this process sees misuse of plain `AsyncStream`, `AsyncThrowingStream` and
    /// `CheckedContinuation` in the code under test, with the app's code left as it is (see
    /// ``Configuration/checksStreamMisuse``): on Linux, where the test executable's own
    /// definitions of their runtime entry points are this library's stubs. The double-resume
    /// check also needs the continuation's layout checked at start-up
    /// (``seesDoubleResume``).
    ///
    /// ```swift
    /// if DiagnosticsEngine.seesStreamMisuse {
    ///     print("a yield after finish() on a plain AsyncStream fails the test at the yield")
    /// }
    /// ```
    public static var seesStreamMisuse: Bool {
        StreamMisuseHook.isInstalled
    }

    /// Whether a plain `CheckedContinuation` resumed twice is a finding (and its second resume
    /// dropped): ``seesStreamMisuse``, and the continuation's layout checked out at start-up.
    public static var seesDoubleResume: Bool {
        StreamMisuseHook.isInstalled && rdiag_stream_hook_canary_offset() >= 0
    }

    /// Starts checking the plain streams and continuations of this engine's tests (called from
    /// the initializer when ``Configuration/checksStreamMisuse`` is on).
    func checkStreamMisuse() {
        StreamMisuseHook.register(self)
    }

    /// Runs `body`, in which the library calls a stream's or a checked continuation's own
    /// members (a diagnosed stream forwarding to the stream it wraps): the library reports
    /// misuse of its wrappers itself, once, so the stream hook looks away.
    ///
    /// ```swift
    /// let result = DiagnosticsEngine.callingOwnStreams { base.yield(value) }
    /// ```
    @_spi(Integration) public static func callingOwnStreams<Result>(_ body: () throws -> Result) rethrows -> Result {
        rdiag_stream_hook_suppress(1)
        defer { rdiag_stream_hook_suppress(-1) }
        return try body()
    }

    /// Marks `stream` as the library's (a diagnosed stream, whose iterations the library
    /// checks itself): its `makeAsyncIterator()` calls are not the stream hook's.
    @_spi(Integration) public static func adoptStream<Element>(_ stream: AsyncStream<Element>) {
        StreamMisuseHook.adopt(stream)
    }

    /// Marks `stream` as the library's (see ``adoptStream(_:)-(AsyncStream<Element>)``).
    @_spi(Integration) public static func adoptStream<Element, Failure>(_ stream: AsyncThrowingStream<Element, Failure>)
    {
        StreamMisuseHook.adopt(stream)
    }

    /// Records what the stream hook saw, when it happened during one of this engine's open
    /// tests. Returns whether it did.
    func recordStreamMisuse(_ event: rdiag_stream_event) -> Bool {
        guard hotEnabled.load(ordering: .relaxed) else { return false }
        let test = currentTest()
        guard test.isKnown, openTests.withLock({ $0[test.rawValue] != nil }) else { return false }
        guard let misuse = StreamMisuse(event) else { return false }
        let stack = withUnsafeBytes(of: event.frames) {
            Self.intern($0, count: Int(event.frame_count), into: stacks)
        }
        let earlier = withUnsafeBytes(of: event.earlier_frames) {
            Self.intern($0, count: Int(event.earlier_frame_count), into: stacks)
        }
        let label = StreamMisuseHook.label(of: event.type, api: event.api)
        var details = ["api": StreamMisuseHook.apiName(event.api)]
        if earlier.isCaptured {
            details["relatedStackRole"] = misuse.earlierRole
        }
        record(
            FindingDraft(
                kind: misuse.kind, message: misuse.message(label: label, api: details["api"] ?? ""), label: label,
                resourceKind: misuse.resourceKind, test: test, allocationStack: stack, capturesEventStack: false,
                eventStack: stack, details: details, relatedStack: earlier))
        return true
    }

    /// Interns the first `count` frames of a C array of frames.
    private static func intern(_ bytes: UnsafeRawBufferPointer, count: Int, into stacks: StackInterner) -> StackID {
        guard count > 0 else { return .none }
        let words = bytes.assumingMemoryBound(to: UInt.self)
        return stacks.intern(UnsafeBufferPointer(rebasing: words[0..<min(count, words.count)]))
    }
}

/// One misuse the stream hook saw, as a finding.
private struct StreamMisuse {
    let kind: FindingKind
    let resourceKind: ResourceKind?
    let earlierRole: String
    private let misuse: Int32

    init?(_ event: rdiag_stream_event) {
        misuse = event.misuse
        switch UInt32(event.misuse) {
        case RDIAG_STREAM_VALUE_AFTER_FINISH.rawValue:
            (kind, resourceKind, earlierRole) = (.valueAfterTermination, nil, "finished")
        case RDIAG_STREAM_FINISHED_TWICE.rawValue:
            (kind, resourceKind, earlierRole) = (.duplicateTermination, nil, "first finish")
        case RDIAG_STREAM_VALUE_AFTER_CONSUMER_GONE.rawValue:
            (kind, resourceKind, earlierRole) = (.valueAfterCancel, nil, "")
        case RDIAG_STREAM_SECOND_ITERATOR.rawValue:
            (kind, resourceKind, earlierRole) = (.concurrentIteration, .iteration, "first iterator made")
        case RDIAG_CONTINUATION_RESUMED_TWICE.rawValue:
            (kind, resourceKind, earlierRole) = (.callbackCalledTwice, .continuation, "first resume")
        default:
            StreamMisuseHook.layoutChanged()
            return nil
        }
    }

    func message(label: String, api: String) -> String {
        switch UInt32(misuse) {
        case RDIAG_STREAM_VALUE_AFTER_FINISH.rawValue:
            "`\(api)` after the stream finished: the value is dropped (a callback that comes after `finish()`?)"
        case RDIAG_STREAM_FINISHED_TWICE.rawValue:
            "`\(api)` on a stream that had already finished: the second finish does nothing"
        case RDIAG_STREAM_VALUE_AFTER_CONSUMER_GONE.rawValue:
            "`\(api)` returned `.terminated` with no finish: the consumer went away (its task was cancelled) "
                + "and the producer goes on; stop producing in `onTermination`"
        case RDIAG_STREAM_SECOND_ITERATOR.rawValue:
            "a second iterator of one \(label) (`makeAsyncIterator()` while another iterator of it exists): "
                + "each element goes to one of the iterating tasks (an AsyncThrowingStream stops the process)"
        default:
            "a \(label) resumed a second time: the second resume was dropped (it would have stopped the process)"
        }
    }
}

/// The functions the C layer's stream hook tells and asks; the engines it tells are the
/// ``HookedEngines`` registered for `.streams`.
enum StreamMisuseHook {
    /// Whether the hook is set: the platform has it and the layout facts it needs checked out.
    static let isInstalled: Bool = {
        guard rdiag_stream_hook_available() != 0,
            ProcessInfo.processInfo.environment[Configuration.environmentPrefix + "STREAM_HOOKS"].map(Self.isOn)
                ?? true,
            StreamLayoutCheck.typeArgumentsReadable()
        else {
            return false
        }
        if StreamLayoutCheck.continuationCanaryPasses() {
            rdiag_stream_hook_set_canary_offset(StreamLayoutCheck.canaryOffset)
        }
        rdiag_stream_hook_set(
            { event in StreamMisuseHook.tell(event.pointee) },
            { api, result, type in StreamMisuseHook.yieldResult(api: api, result: result, type: type) })
        return true
    }()

    private static func isOn(_ text: String) -> Bool {
        !["0", "false", "no", "off"].contains(text.lowercased())
    }

    static func register(_ engine: DiagnosticsEngine) {
        guard isInstalled else { return }
        HookedEngines.register(engine, for: .streams)
    }

    /// A test of `engine` began: while any is open the hook looks at calls.
    static func testOpened(in engine: DiagnosticsEngine) {
        guard isInstalled, HookedEngines.isRegistered(engine, for: .streams) else { return }
        rdiag_stream_hook_tests(1)
    }

    /// A test of `engine` was closed.
    static func testClosed(in engine: DiagnosticsEngine) {
        guard isInstalled, HookedEngines.isRegistered(engine, for: .streams) else { return }
        rdiag_stream_hook_tests(-1)
    }

    static func adopt<Stream>(_ stream: Stream) {
        guard isInstalled, MemoryLayout<Stream>.size == MemoryLayout<UnsafeRawPointer>.size else { return }
        let object = withUnsafeBytes(of: stream) { $0.load(as: UnsafeRawPointer.self) }
        rdiag_stream_hook_adopt(object)
    }

    private static let layoutWarning: Void = StandardError.write(
        "ReactiveDiagnostics: a CheckedContinuation's layout is not the one checked at start-up; "
            + "the double-resume check is off\n")

    static func layoutChanged() {
        _ = layoutWarning
    }

    static func tell(_ event: rdiag_stream_event) {
        HookedEngines.first(for: .streams) { $0.recordStreamMisuse(event) }
    }

    /// `AsyncStream<Int>`, `AsyncThrowingStream<Data, any Error>`, `CheckedContinuation<Int, Never>`:
    /// the type the call was made on (a continuation named by its stream).
    static func label(of type: UnsafeRawPointer?, api: Int32) -> String {
        let base: String
        switch UInt32(api) {
        case RDIAG_STREAM_YIELD.rawValue, RDIAG_STREAM_YIELD_WITH.rawValue, RDIAG_STREAM_YIELD_VOID.rawValue,
            RDIAG_STREAM_FINISH.rawValue, RDIAG_STREAM_MAKE_ITERATOR.rawValue:
            base = "AsyncStream"
        case RDIAG_CONTINUATION_RESUME_RETURNING.rawValue, RDIAG_CONTINUATION_RESUME_THROWING.rawValue,
            RDIAG_CONTINUATION_INIT.rawValue:
            base = "CheckedContinuation"
        default:
            base = "AsyncThrowingStream"
        }
        let arguments = base == "AsyncStream" ? 1 : 2
        guard let type, StreamLayoutCheck.isStruct(type) else { return base }
        let names = (0..<arguments).map { String(describing: StreamLayoutCheck.typeArgument(type, $0)) }
        return "\(base)<\(names.joined(separator: ", "))>"
    }

    static func apiName(_ api: Int32) -> String {
        switch UInt32(api) {
        case RDIAG_STREAM_YIELD.rawValue: "AsyncStream.Continuation.yield(_:)"
        case RDIAG_STREAM_YIELD_WITH.rawValue: "AsyncStream.Continuation.yield(with:)"
        case RDIAG_STREAM_YIELD_VOID.rawValue: "AsyncStream.Continuation.yield()"
        case RDIAG_STREAM_FINISH.rawValue: "AsyncStream.Continuation.finish()"
        case RDIAG_THROWING_STREAM_YIELD.rawValue: "AsyncThrowingStream.Continuation.yield(_:)"
        case RDIAG_THROWING_STREAM_YIELD_WITH.rawValue: "AsyncThrowingStream.Continuation.yield(with:)"
        case RDIAG_THROWING_STREAM_YIELD_VOID.rawValue: "AsyncThrowingStream.Continuation.yield()"
        case RDIAG_THROWING_STREAM_FINISH.rawValue: "AsyncThrowingStream.Continuation.finish(throwing:)"
        case RDIAG_CONTINUATION_RESUME_RETURNING.rawValue: "CheckedContinuation.resume(returning:)"
        case RDIAG_CONTINUATION_RESUME_THROWING.rawValue: "CheckedContinuation.resume(throwing:)"
        case RDIAG_STREAM_MAKE_ITERATOR.rawValue: "AsyncStream.makeAsyncIterator()"
        case RDIAG_THROWING_STREAM_MAKE_ITERATOR.rawValue: "AsyncThrowingStream.makeAsyncIterator()"
        default: "CheckedContinuation.init(continuation:function:)"
        }
    }

    /// Reads the `YieldResult` a yield wrote, through the stream's own generic type (the
    /// standard library's value witnesses do the reading: no layout is assumed).
    static func yieldResult(api: Int32, result: UnsafeRawPointer, type: UnsafeRawPointer) -> Int32 {
        let element = StreamLayoutCheck.typeArgument(type, 0)
        switch UInt32(api) {
        case RDIAG_STREAM_YIELD.rawValue, RDIAG_STREAM_YIELD_WITH.rawValue:
            return streamTag(element, result)
        case RDIAG_THROWING_STREAM_YIELD.rawValue, RDIAG_THROWING_STREAM_YIELD_WITH.rawValue:
            guard let failure = StreamLayoutCheck.typeArgument(type, 1) as? any Error.Type else { return -1 }
            return throwingStreamTag(failure, element, result)
        default:
            return -1
        }
    }

    private static func streamTag<Element>(_: Element.Type, _ result: UnsafeRawPointer) -> Int32 {
        switch result.assumingMemoryBound(to: AsyncStream<Element>.Continuation.YieldResult.self).pointee {
        case .enqueued: 0
        case .dropped: 1
        case .terminated: 2
        @unknown default: -1
        }
    }

    private static func throwingStreamTag<Failure: Error>(
        _: Failure.Type, _ element: any Any.Type, _ result: UnsafeRawPointer
    ) -> Int32 {
        func tag<Element>(_: Element.Type) -> Int32 {
            switch result.assumingMemoryBound(to: AsyncThrowingStream<Element, Failure>.Continuation.YieldResult.self)
                .pointee
            {
            case .enqueued: 0
            case .dropped: 1
            case .terminated: 2
            @unknown default: -1
            }
        }
        return tag(element)
    }
}

/// The layout facts the stream hook relies on, checked once against values of our own.
enum StreamLayoutCheck {
    /// Where a `CheckedContinuation`'s canary keeps its `UnsafeContinuation` (after the object
    /// header), the function name right after it.
    static let canaryOffset = 16

    /// Struct metadata: its kind word (`MetadataKind::Struct`).
    static func isStruct(_ type: UnsafeRawPointer) -> Bool {
        type.load(as: UInt.self) == 0x200
    }

    /// Generic argument `index` of a generic struct's metadata (after its kind and description).
    static func typeArgument(_ type: UnsafeRawPointer, _ index: Int) -> any Any.Type {
        unsafeBitCast(type.load(fromByteOffset: (2 + index) * 8, as: UnsafeRawPointer.self), to: Any.Type.self)
    }

    /// Whether the metadata of the continuations and streams read as assumed.
    static func typeArgumentsReadable() -> Bool {
        let stream = unsafeBitCast(AsyncStream<Int8>.Continuation.self, to: UnsafeRawPointer.self)
        let throwing = unsafeBitCast(AsyncThrowingStream<Int8, any Error>.self, to: UnsafeRawPointer.self)
        let continuation = unsafeBitCast(CheckedContinuation<Int8, any Error>.self, to: UnsafeRawPointer.self)
        return isStruct(stream) && isStruct(throwing) && isStruct(continuation)
            && typeArgument(stream, 0) == Int8.self && typeArgument(throwing, 0) == Int8.self
            && typeArgument(throwing, 1) == (any Error).self && typeArgument(continuation, 1) == (any Error).self
            && MemoryLayout<AsyncStream<Int8>>.size == 8 && MemoryLayout<AsyncStream<Int8>.Continuation>.size == 8
            && MemoryLayout<CheckedContinuation<Int8, any Error>>.size == 8
    }

    /// Checks, with a continuation of our own in a task of our own (on a thread of its own,
    /// bounded), that the canary holds the `UnsafeContinuation` and the function name at
    /// ``canaryOffset`` and that the first resume clears it.
    static func continuationCanaryPasses() -> Bool {
        let verdict = LockedValue<Bool?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let finished = DispatchSemaphore(value: 0)
            let passed = LockedValue(false)
            let executor = CheckQueueExecutor(label: "ReactiveDiagnostics continuation layout check")
            _ = DiagnosticsEngine.startingOwnTasks {
                Task.detached(executorPreference: executor) {
                    await withUnsafeContinuation { (unsafe: UnsafeContinuation<Void, Never>) in
                        let result = DiagnosticsEngine.callingOwnStreams { check(unsafe) }
                        passed.withLock { $0 = result }
                    }
                    finished.signal()
                }
            }
            let ended = finished.wait(timeout: .now() + 10) == .success
            verdict.withLock { $0 = ended && passed.withLock { $0 } }
            done.signal()
        }
        thread.name = "ReactiveDiagnostics continuation layout check"
        thread.start()
        guard done.wait(timeout: .now() + 12) == .success else { return false }
        return verdict.withLock { $0 } ?? false
    }

    /// Resumes `unsafe` through a checked continuation; returns whether the layout checked out.
    private static func check(_ unsafe: UnsafeContinuation<Void, Never>) -> Bool {
        let function = "ReactiveDiagnostics.layoutCheck"
        let checked = CheckedContinuation(continuation: unsafe, function: function)
        return withExtendedLifetime(checked) {
            let canary = unsafeBitCast(checked, to: UnsafeRawPointer.self)
            let pending = unsafeBitCast(unsafe, to: UnsafeRawPointer.self)
            let holds =
                canary.load(fromByteOffset: canaryOffset, as: UnsafeRawPointer?.self) == pending
                && canary.load(fromByteOffset: canaryOffset + 8, as: String.self) == function
            checked.resume()
            let cleared = canary.load(fromByteOffset: canaryOffset, as: UnsafeRawPointer?.self) == nil
            return holds && cleared
        }
    }
}
