import CReactiveDiagnostics
import Dispatch
import Foundation
import ReactiveDiagnostics
import Synchronization
import Testing
import _ReactiveDiagnosticsSupport

#if canImport(Glibc)
import Glibc
#endif

/// The frame-pointer path of stack capture gives exactly libunwind's addresses: at any depth,
/// on any thread, through C code that keeps no frame pointer, and while threads learn the same
/// return addresses at once.
@Suite("Stack capture along frame pointers")
struct FramePointerCaptureTests {
    /// One stack walked both ways from the same frame: libunwind's from this function's caller
    /// on (it starts inside `rdiag_backtrace`, then here), and `rdiag_capture_stack`'s (it starts
    /// here). Captured three times: the first learns the return addresses it meets, the second
    /// walks along frame pointers and learns the bottom of the thread's stack from libunwind,
    /// the third is all frame pointers and remembered bottom. All three must agree.
    @inline(never)
    static func bothWays(depth: Int) -> (libunwind: [UInt], captured: [UInt]) {
        let capturedBuffer = UnsafeMutablePointer<UnsafeMutableRawPointer>.allocate(capacity: depth + 1)
        let libunwindBuffer = UnsafeMutablePointer<UnsafeMutableRawPointer>.allocate(capacity: depth + 2)
        defer {
            capturedBuffer.deallocate()
            libunwindBuffer.deallocate()
        }
        // Both calls are made from this frame, without closures in between.
        let addresses = { (buffer: UnsafeMutablePointer<UnsafeMutableRawPointer>, count: Int) in
            (0..<count).map { UInt(bitPattern: buffer[$0]) }
        }
        var captures: [[UInt]] = []
        for _ in 0..<3 {
            let count = Int(rdiag_capture_stack(capturedBuffer, Int32(depth + 1)))
            captures.append(Array(addresses(capturedBuffer, count).dropFirst()))
        }
        let libunwind = Int(rdiag_backtrace(libunwindBuffer, Int32(depth + 2)))
        let expected = Array(addresses(libunwindBuffer, libunwind).dropFirst(2))
        // A capture that differs from libunwind's walk is returned as such.
        return (expected, captures.first { $0 != expected } ?? captures[2])
    }

    /// `bothWays` with `levels` more frames of Swift code under it.
    @inline(never)
    static func atDepth(_ levels: Int, depth: Int) -> (libunwind: [UInt], captured: [UInt]) {
        if levels <= 0 {
            return bothWays(depth: depth)
        }
        let result = atDepth(levels - 1, depth: depth)
        withExtendedLifetime(levels) {}
        return result
    }

    static func expectAgreement(
        _ walks: (libunwind: [UInt], captured: [UInt]), sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(walks.captured.count > 3, sourceLocation: sourceLocation)
        #expect(walks.captured == walks.libunwind, sourceLocation: sourceLocation)
        #if os(Linux) && arch(x86_64)
        // The second capture went along frame pointers: this suite's Swift frames were learned.
        #expect(rdiag_capture_stack_frame_kind(walks.captured[0]) == 1, sourceLocation: sourceLocation)
        #endif
    }

    @Test(arguments: [0, 10, 100])
    func bothWalksAgreeAtAnyDepth(levels: Int) {
        Self.expectAgreement(Self.atDepth(levels, depth: 16))
        // Deeper than the stack: the walk reaches the thread's first frames, which glibc
        // compiles without frame pointers, and ends where libunwind's ends.
        Self.expectAgreement(Self.atDepth(levels, depth: Int(RDIAG_MAXIMUM_DEPTH) - 1))
    }

    @Test func bothWalksAgreeInAsyncCode() async {
        await Task.yield()
        let walks = Self.atDepth(3, depth: 64)
        Self.expectAgreement(walks)
        #if os(Linux) && arch(x86_64)
        // Swift's async frames keep frame pointers too: only the thread's first frames do not.
        let kinds = walks.captured.map { rdiag_capture_stack_frame_kind($0) }
        #expect(kinds.prefix(6).allSatisfy { $0 == 1 }, "\(kinds)")
        #endif
    }

    @Test func bothWalksAgreeOnOtherThreads() {
        // A pthread mutex: Synchronization.Mutex's contended path is a futex Thread Sanitizer cannot
        // see, and its accesses read as a race (Docs/Reliability.md).
        let results = LockedValue<[(libunwind: [UInt], captured: [UInt])]>([])
        let group = DispatchGroup()
        for levels in [0, 5, 50] {
            DispatchQueue.global().async(group: group) {
                let walks = Self.atDepth(levels, depth: Int(RDIAG_MAXIMUM_DEPTH) - 1)
                results.withLock { $0.append(walks) }
            }
        }
        let thread = Thread {
            let walks = Self.atDepth(3, depth: Int(RDIAG_MAXIMUM_DEPTH) - 1)
            results.withLock { $0.append(walks) }
            group.leave()
        }
        group.enter()
        thread.start()
        group.wait()
        let all = results.withLock { $0 }
        #expect(all.count == 4)
        for walks in all {
            Self.expectAgreement(walks)
        }
    }

    nonisolated(unsafe) static var insideQsort: (libunwind: [UInt], captured: [UInt])?

    /// A comparator called by the C library's `qsort`: the stack passes through glibc's sorting
    /// code, which keeps no frame pointer, so the walk must hand over to libunwind.
    @Test func bothWalksAgreeThroughCodeWithoutFramePointers() {
        var numbers: [Int32] = [2, 1]
        numbers.withUnsafeMutableBufferPointer { buffer in
            qsort(buffer.baseAddress!, 2, MemoryLayout<Int32>.stride) { left, right in
                if FramePointerCaptureTests.insideQsort == nil {
                    FramePointerCaptureTests.insideQsort = FramePointerCaptureTests.bothWays(depth: 64)
                }
                return left!.load(as: Int32.self) < right!.load(as: Int32.self) ? -1 : 1
            }
        }
        guard let walks = Self.insideQsort else {
            Issue.record("qsort never called the comparator")
            return
        }
        Self.expectAgreement(walks)
        #if os(Linux) && arch(x86_64)
        #expect(
            walks.captured.contains { rdiag_capture_stack_frame_kind($0) == 2 }, "glibc's sort keeps no frame pointer")
        #endif
        // The walk went on past the C library into this test.
        let ownFrames = walks.captured.filter { address in
            Symbolizer.shared.symbolize(address).function?.contains("bothWalksAgreeThroughCodeWithoutFramePointers")
                == true
        }
        #expect(!ownFrames.isEmpty)
    }

    @Test func threadsLearningAtOnceAgree() {
        let disagreements = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 16) { index in
            let walks = Self.atDepth(index, depth: 48)
            if walks.captured != walks.libunwind || walks.captured.isEmpty {
                disagreements.add(1, ordering: .relaxed)
            }
        }
        #expect(disagreements.load(ordering: .relaxed) == 0)
    }

    @Test func aFramePointerWalkReachesTheSameCaller() {
        // The unchecked walk (the benchmark's physical limit) starts at its caller too.
        var buffer = [UnsafeMutableRawPointer?](repeating: nil, count: 4)
        let count = buffer.withUnsafeMutableBufferPointer { pointer in
            pointer.withMemoryRebound(to: UnsafeMutableRawPointer.self) {
                Int(rdiag_frame_pointer_walk($0.baseAddress!, 4))
            }
        }
        #expect(count == 4)
        let function = Symbolizer.shared.symbolize(UInt(bitPattern: buffer[0])).function ?? ""
        #expect(function.contains("aFramePointerWalkReachesTheSameCaller"), "\(function)")
    }
}
