import Foundation
import ReactiveDiagnostics
import Testing

/// Stacks captured in `async` code: the chain of awaiting callers, read from the task's async
/// contexts, where the thread's stack ends at the executor.
@Suite struct AsyncStackCaptureTests {
    /// Two levels of async callers between the test and the capture, each awaiting.
    @inline(never)
    func outerCaller(_ engine: DiagnosticsEngine) async -> StackID {
        await Task.yield()
        let stack = await innerCaller(engine)
        await Task.yield()
        return stack
    }

    @inline(never)
    func innerCaller(_ engine: DiagnosticsEngine) async -> StackID {
        await Task.yield()
        return await engine.captureAsyncAllocationStack()
    }

    @Test func theChainOfAwaitingCallersIsCaptured() async {
        let engine = DiagnosticsEngine()
        let stack = await outerCaller(engine)
        let names = engine.symbolize(stack).frames.compactMap(\.function)
        func index(_ name: String) -> Int? { names.firstIndex { $0.contains(name) } }
        #expect(
            index("innerCaller") != nil && index("outerCaller") != nil
                && index("theChainOfAwaitingCallersIsCaptured") != nil, "\(names)")
        if let inner = index("innerCaller"), let outer = index("outerCaller") {
            #expect(inner < outer, "innermost first")
        }
        // The thread's stack, for comparison, ends at the executor after the innermost function.
        let threadStack = engine.captureStack()
        #expect(!engine.symbolize(threadStack).frames.contains { $0.function?.contains("outerCaller") == true })
    }

    @Test func aTaskStartedInAFunctionNamesItsClosure() async {
        let engine = DiagnosticsEngine()
        let stack = await Task { await innerCaller(engine) }.value
        let names = engine.symbolize(stack).frames.compactMap(\.function)
        #expect(
            names.contains { $0.contains("closure #1") && $0.contains("aTaskStartedInAFunctionNamesItsClosure") },
            "\(names)")
    }

    @Test func noStacksWhenStacksAreOff() async {
        var configuration = Configuration()
        configuration.capturesAllocationStacks = false
        let engine = DiagnosticsEngine(configuration: configuration)
        #expect(await engine.captureAsyncAllocationStack() == .none)
    }
}
