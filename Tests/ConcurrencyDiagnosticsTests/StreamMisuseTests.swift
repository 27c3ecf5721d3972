@_spi(Integration) import ReactiveDiagnostics
import CReactiveDiagnostics
import ConcurrencyDiagnostics
import Foundation
import Testing

/// Misuse of plain `AsyncStream`, `AsyncThrowingStream` and `CheckedContinuation` in app code
/// written without diagnostics (Support/AppModels.swift), seen by the stream hook: each a
/// finding at the app's call, attributed to the test.
@Suite(
    .enabled(
        if: DiagnosticsEngine.seesStreamMisuse,
        "the stream hook is off: not Linux, or REACTIVE_DIAGNOSTICS_STREAM_HOOKS=0"))
struct StreamMisuseTests {
    struct UploadFailed: Error {}

    @Test func yieldAfterFinishIsSeenAtTheLateCallback() async {
        let engine = makeEngine()
        let feed = LocationFeed()
        let outcome = await runTest(engine) {
            let locations = feed.locations()
            feed.didUpdateLocation(1)
            feed.stop()
            feed.didUpdateLocation(2)
            feed.stop()
            withExtendedLifetime(locations) {}
        }
        let late = onlyFinding(outcome, .valueAfterTermination)
        expectEvidence(
            late, engine, kind: .valueAfterTermination, label: "AsyncStream<Int>", outcome: outcome,
            function: "didUpdateLocation(_:)")
        if let late {
            expectStack(engine, late.eventStack, contains: "didUpdateLocation(_:)")
            expectStack(engine, late.relatedStack, contains: "stop()")
            #expect(late.details["relatedStackRole"] == "finished")
        }
        let again = onlyFinding(outcome, .duplicateTermination)
        expectEvidence(
            again, engine, kind: .duplicateTermination, label: "AsyncStream<Int>", outcome: outcome,
            function: "stop()")
        #expect(outcome.findings.count == 2)
    }

    @Test func throwingStreamUsedAfterItFailedIsSeen() async {
        let engine = makeEngine()
        let upload = UploadProgress()
        let outcome = await runTest(engine) {
            upload.report(10)
            upload.fail(UploadFailed())
            upload.report(20)
            upload.complete()
        }
        let late = onlyFinding(outcome, .valueAfterTermination)
        expectEvidence(
            late, engine, kind: .valueAfterTermination, label: "AsyncThrowingStream<Int, Error>", outcome: outcome,
            function: "report(_:)")
        if let late {
            expectStack(engine, late.relatedStack, contains: "fail(_:)")
        }
        let again = onlyFinding(outcome, .duplicateTermination)
        expectEvidence(
            again, engine, kind: .duplicateTermination, label: "AsyncThrowingStream<Int, Error>", outcome: outcome,
            function: "complete()")
        #expect(outcome.findings.count == 2)
    }

    @Test func continuationResumedTwiceIsSeenAndTheSecondResumeDropped() async throws {
        try #require(DiagnosticsEngine.seesDoubleResume)
        let engine = makeEngine()
        let client = LegacyWeatherClient()
        let temperature = Box(0)
        let outcome = await runTest(engine) {
            temperature.value = await loadTemperature(from: client)
        }
        #expect(temperature.value == 21)
        let twice = onlyFinding(outcome, .callbackCalledTwice)
        expectEvidence(
            twice, engine, kind: .callbackCalledTwice, label: "CheckedContinuation<Int, Never>", outcome: outcome,
            function: "loadTemperature(from:)")
        if let twice {
            expectStack(engine, twice.relatedStack, contains: "loadTemperature(from:)")
            #expect(twice.details["relatedStackRole"] == "first resume")
        }
        #expect(outcome.findings.count == 1)
    }

    @Test func secondIteratorOfOneStreamIsSeen() async {
        let engine = makeEngine()
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let counts = Box((0, 0))
        let outcome = await runTest(engine) {
            let (first, second) = startTwoListeners(to: stream)
            await eventually("both listeners iterate") {
                rdiag_stream_hook_calls(Int32(RDIAG_STREAM_MAKE_ITERATOR.rawValue)) >= 2
                    && engine.findings().contains { $0.kind == .concurrentIteration }
            }
            for value in 0..<4 { continuation.yield(value) }
            continuation.finish()
            counts.value = (await first.value, await second.value)
        }
        #expect(counts.value.0 + counts.value.1 == 4)
        let second = onlyFinding(outcome, .concurrentIteration)
        expectEvidence(
            second, engine, kind: .concurrentIteration, label: "AsyncStream<Int>", outcome: outcome,
            function: "startTwoListeners(to:)")
        if let second {
            expectStack(engine, second.relatedStack, contains: "startTwoListeners(to:)")
        }
        #expect(outcome.findings.count == 1)
    }

    @Test func yieldsAfterTheConsumerWentAwayAreSeenOnce() async {
        let engine = makeEngine()
        let pump = SensorPump()
        let outcome = await runTest(engine) {
            let consumer = Task { [samples = pump.samples] in
                for await _ in samples {}
            }
            consumer.cancel()
            await consumer.value
            pump.pump(3)
        }
        let gone = onlyFinding(outcome, .valueAfterCancel)
        expectEvidence(
            gone, engine, kind: .valueAfterCancel, label: "AsyncStream<Int>", outcome: outcome, function: "pump(_:)")
        #expect(gone?.severity == FindingKind.valueAfterCancel.defaultSeverity)
        #expect(outcome.findings.count == 1)
    }

    /// Finishing once, yielding before the finish, one consumer per stream and one resume are
    /// no finding. Iterating a stream again after a first loop over it ended is reported (the
    /// hook cannot tell a first iterator that is gone from one that still waits), so it is not
    /// among these idioms.
    @Test func correctIdiomsAreNoFinding() async {
        let engine = makeEngine()
        let result = Box((sum: 0, pages: [String](), temperature: 0))
        let outcome = await runTest(engine) {
            result.value = await correctStreamIdioms()
        }
        #expect(result.value.sum == 3 && result.value.pages == ["first"] && result.value.temperature == 20)
        expectNoFindings(outcome, engine)
    }

    @Test func misuseOutsideTestsIsNotLookedAt() async {
        let engine = makeEngine()
        let feed = LocationFeed()
        let locations = feed.locations()
        feed.stop()
        feed.didUpdateLocation(1)
        feed.stop()
        withExtendedLifetime(locations) {}
        let outcome = await runTest(engine) {}
        expectNoFindings(outcome, engine)
    }

    @Test func theLibrarysOwnStreamsAreNotReportedTwice() async {
        let engine = makeEngine()
        let outcome = await runTest(engine) {
            let (stream, continuation) = AsyncStream<Int>.makeDiagnosedStream("own", engine: engine)
            continuation.finish()
            continuation.yield(1)
            for await _ in stream {}
        }
        #expect(outcome.findings.filter { $0.kind == .valueAfterTermination }.count == 1)
    }
}
