import ConcurrencyDiagnostics
import Foundation
import Testing

/// A model whose updates run in a diagnosed task it never cancels.
final class QuoteBoard: @unchecked Sendable {
    // Unchecked: `shown` is written by the loop and read by the test after an eventually-wait.
    private let lock = NSLock()
    private var shown: [Int] = []

    var quotes: [Int] { lock.withLock { shown } }

    /// The strong-self loop: the task keeps the board alive.
    func follow(_ quotes: AsyncStream<Int>, engine: DiagnosticsEngine) {
        Task.diagnosed("quote updates", owner: self, engine: engine) {
            for await quote in quotes {
                self.show(quote)
            }
        }
    }

    /// The weak-self loop: the board goes away, the loop goes on.
    func followWeakly(_ quotes: AsyncStream<Int>, engine: DiagnosticsEngine) {
        Task.diagnosed("quote updates", owner: self, engine: engine) { [weak self] in
            for await quote in quotes {
                self?.show(quote)
            }
        }
    }

    private func show(_ quote: Int) {
        lock.withLock { shown.append(quote) }
    }
}

/// Each finding of diagnosed tasks, provoked by real Swift Concurrency code.
@Suite struct TaskFindingTests {
    @Test func aTaskStillRunningAtTheEndIsFoundWithItsOwner() async throws {
        let engine = makeEngine()
        let (quotes, feed) = AsyncStream.makeStream(of: Int.self)
        let outcome = await runTest(engine) {
            let board = QuoteBoard()
            board.follow(quotes, engine: engine)
            feed.yield(7)
            await eventually("the board shows the quote") { board.quotes == [7] }
        }
        feed.finish()
        let finding = onlyFinding(outcome, .leakedResource)
        expectEvidence(
            finding, engine, kind: .leakedResource, label: "quote updates", outcome: outcome,
            function: "QuoteBoard.follow")
        #expect(finding?.resourceKind == .task)
        #expect(
            finding?.message.contains("Its owner, a QuoteBoard, is still alive") == true, "\(finding?.message ?? "")")
    }

    @Test func aTaskThatOutlivedItsOwnerIsNamed() async throws {
        let engine = makeEngine()
        let (quotes, feed) = AsyncStream.makeStream(of: Int.self)
        let outcome = await runTest(engine) {
            QuoteBoard().followWeakly(quotes, engine: engine)  // the board is released at once
        }
        feed.finish()
        let finding = onlyFinding(outcome, .leakedResource)
        expectEvidence(
            finding, engine, kind: .leakedResource, label: "quote updates", outcome: outcome,
            function: "QuoteBoard.followWeakly")
        #expect(
            finding?.message.contains("Its owner, a QuoteBoard, is gone: the task outlived it") == true,
            "\(finding?.message ?? "")")
    }

    @Test func aGroupChildStillRunningAtTheEndIsFound() async throws {
        let engine = makeEngine()
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let fastChildDone = Box(false)
        let outcome = await runTest(engine) {
            Task {
                await withTaskGroup(of: Int.self) { group in
                    group.addDiagnosedTask("fast child", engine: engine) { 1 }
                    group.addDiagnosedTask("stuck child", engine: engine) { await countElements(of: stream) }
                    for await _ in group {
                        fastChildDone.value = true
                    }
                }
            }
            await eventually("the fast child returned") { fastChildDone.value }
        }
        continuation.finish()
        let finding = onlyFinding(outcome, .leakedResource)
        expectEvidence(finding, engine, kind: .leakedResource, label: "stuck child", outcome: outcome)
    }
}
