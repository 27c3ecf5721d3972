@_spi(Integration) import ReactiveDiagnostics
import ConcurrencyDiagnostics
import Foundation
import Testing

/// Frames of generic `async` code are located: a resume point's first instruction in a generic
/// function carries line 0 (the prologue that reloads the generic context), so its line is the
/// first one the line table gives a little further into the same function, the `await`'s.
@Suite struct GenericCodeLineTests {
    @Test func aLoopInAGenericFunctionIsPlacedAtItsForAwaitLine() async throws {
        let engine = makeEngine { $0.resolvesSourceLines = true }
        let (stream, feed) = AsyncStream.makeStream(of: Int.self)
        let outcome = await runTest(engine) {
            Task { await countElements(of: stream.diagnosed("generic", engine: engine)) }
            feed.yield(1)
            await waitForIterations(1, in: engine)
        }
        let finding = onlyFinding(outcome, .leakedSubscription)
        let report = engine.makeReport()
        let stacks = Dictionary(uniqueKeysWithValues: report.stacks.map { ($0.id, $0) })
        let reported = try #require(report.findings.first { $0.id == finding?.id })
        let frames = try #require(reported.allocationStack.flatMap { stacks[$0] }).frames
        let loop = try #require(frames.first { $0.function?.contains("countElements") == true })
        let source = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("Support/AppModels.swift"), encoding: .utf8
        )
        .split(separator: "\n", omittingEmptySubsequences: false)
        let declaration = try #require(source.firstIndex { $0.contains("func countElements<") })
        let forAwait = try #require(source[declaration...].firstIndex { $0.contains("for await") }) + 1
        #expect(loop.file?.hasSuffix("Support/AppModels.swift") == true, "\(loop)")
        #expect(loop.line == forAwait, "\(loop)")
        feed.finish()
    }
}
