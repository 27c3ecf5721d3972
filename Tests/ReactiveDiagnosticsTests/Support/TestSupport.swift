import Dispatch
import Foundation
import ReactiveDiagnostics
import ReactiveDiagnosticsTestSupport
import Testing

/// An engine for one test: stacks on, nothing written to disk, nothing printed.
func makeEngine(_ change: (inout Configuration) -> Void = { _ in }) -> DiagnosticsEngine {
    quietEngine(change)
}

/// Runs `body` on `count` threads at once and waits for all of them.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    let start = DispatchSemaphore(value: 0)
    for index in 0..<count {
        let thread = Thread {
            start.wait()
            body(index)
            group.leave()
        }
        group.enter()
        thread.start()
    }
    for _ in 0..<count { start.signal() }
    group.wait()
}

/// Runs `body` on `count` threads at once and waits for all of them without blocking a thread
/// of Swift's cooperative pool (which other tests running in parallel need).
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        Thread.detachNewThread {
            onThreads(count, body)
            continuation.resume()
        }
    }
}

/// Asserts that a stack was captured and that its first frame (after the library's own
/// frames) is inside `function` — by default the calling test.
func expectStack(
    _ engine: DiagnosticsEngine, _ stack: StackID, startsIn function: String = #function,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(stack.isCaptured, "no stack was captured", sourceLocation: sourceLocation)
    let name = function.split(separator: "(").first.map(String.init) ?? function
    let frames = engine.symbolize(stack).frames
    let first = frames.first?.function ?? "<none>"
    #expect(
        first.contains(name), "first frame is \(first), expected one inside \(name)", sourceLocation: sourceLocation)
}

/// Asserts `stack` contains a frame inside `function` (anywhere).
func expectStack(
    _ engine: DiagnosticsEngine, _ stack: StackID, contains function: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let name = function.split(separator: "(").first.map(String.init) ?? function
    let frames = engine.symbolize(stack).frames
    #expect(
        frames.contains { $0.function?.contains(name) == true },
        "no frame inside \(name) in \(frames.map(\.displayName))", sourceLocation: sourceLocation)
}

/// The one finding of `kind`, asserting there is exactly one.
func onlyFinding(
    _ engine: DiagnosticsEngine, _ kind: FindingKind, sourceLocation: SourceLocation = #_sourceLocation
) -> Finding? {
    let matching = engine.findings().filter { $0.kind == kind }
    #expect(
        matching.count == 1, "expected one \(kind), found \(engine.findings().map(\.kind))",
        sourceLocation: sourceLocation)
    return matching.first
}

/// The directory of this test target's sources (for Docs/ and fixtures next to them).
func packageRoot() -> URL {
    // This file is Tests/ReactiveDiagnosticsTests/Support/TestSupport.swift.
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
}
