@_spi(Integration) import ReactiveDiagnostics
import Testing
import _ReactiveDiagnosticsSupport

@Suite("Stack interning")
struct StackInternerTests {
    @Test func identicalStacksShareOneID() {
        let interner = StackInterner()
        let first = interner.intern([0x10, 0x20, 0x30])
        #expect(interner.intern([0x10, 0x20, 0x30]) == first)
        #expect(interner.count == 1)
        #expect(interner.addresses(of: first) == [0x10, 0x20, 0x30])
    }

    @Test func differentStacksGetDifferentIDs() {
        let interner = StackInterner()
        let ids = [[1, 2, 3], [1, 2], [3, 2, 1], [1, 2, 3, 4]].map { interner.intern($0.map(UInt.init)) }
        #expect(Set(ids).count == 4)
        #expect(interner.count == 4)
    }

    @Test func stacksThatShareTheirHashedFramesStayApart() {
        // The hash reads the first 16 frames; the thread's cache and the shard compare all.
        let interner = StackInterner()
        let prefix = (1...16).map(UInt.init)
        let first = interner.intern(prefix + [100, 200])
        let second = interner.intern(prefix + [100, 201])
        #expect(first != second)
        #expect(interner.intern(prefix + [100, 200]) == first)
        #expect(interner.intern(prefix + [100, 201]) == second)
        #expect(interner.addresses(of: second) == prefix + [100, 201])
    }

    @Test func eachInternerKeepsItsOwnIDsInTheThreadsCache() {
        let stack: [UInt] = [0x1000, 0x2000, 0x3000]
        let first = StackInterner()
        let firstID = first.intern(stack)
        let second = StackInterner()
        _ = second.intern([7, 8, 9])
        _ = second.intern([7, 8])
        let secondID = second.intern(stack)
        #expect(second.addresses(of: secondID) == stack)
        #expect(second.intern(stack) == secondID)
        #expect(first.intern(stack) == firstID)
        #expect(first.addresses(of: firstID) == stack)
    }

    @Test func aGoneInternersCacheEntriesNeverMatch() {
        // Its stored frames are freed; a new interner (perhaps at the same address) must
        // never be handed one of its ids, nor read its frames.
        let stack: [UInt] = [0xA, 0xB, 0xC, 0xD]
        do {
            let gone = StackInterner()
            for index in 0..<64 {
                _ = gone.intern([UInt(index)] + stack)
            }
            _ = gone.intern(stack)
        }
        let interner = StackInterner()
        let id = interner.intern(stack)
        #expect(interner.count == 1)
        #expect(interner.addresses(of: id) == stack)
    }

    @Test func longStacksGetChunksOfTheirOwn() {
        let interner = StackInterner()
        let long = (0..<20_000).map(UInt.init)
        let id = interner.intern(long)
        let short = interner.intern([1, 2])
        #expect(interner.addresses(of: id) == long)
        #expect(interner.addresses(of: short) == [1, 2])
        #expect(interner.intern(long) == id)
    }

    @Test func emptyStackIsNone() {
        let interner = StackInterner()
        #expect(interner.intern([]) == .none)
        #expect(interner.addresses(of: .none).isEmpty)
        #expect(interner.addresses(of: StackID(rawValue: 999_999)).isEmpty)
    }

    @Test func manyStacksSurviveTableGrowth() {
        let interner = StackInterner()
        var ids: [StackID] = []
        for index in 0..<10_000 {
            ids.append(interner.intern([UInt(index), UInt(index) &* 31, 7]))
        }
        #expect(interner.count == 10_000)
        for index in stride(from: 0, to: 10_000, by: 97) {
            #expect(interner.addresses(of: ids[index]) == [UInt(index), UInt(index) &* 31, 7])
            #expect(interner.intern([UInt(index), UInt(index) &* 31, 7]) == ids[index])
        }
    }

    @Test func concurrentInterningIsConsistent() {
        let interner = StackInterner()
        let results = LockedValue([[StackID]](repeating: [], count: 8))
        onThreads(8) { thread in
            var mine: [StackID] = []
            for index in 0..<2_000 {
                mine.append(interner.intern([UInt(index), 42, UInt(index % 7)]))
            }
            results.withLock { $0[thread] = mine }
        }
        let all = results.withLock { $0 }
        #expect(interner.count == 2_000)
        for thread in 1..<8 {
            #expect(all[thread] == all[0], "every thread got the same id for the same stack")
        }
    }

    @Test func capturedStacksAreInterned() {
        let engine = makeEngine()
        var ids: Set<StackID> = []
        for _ in 0..<100 {
            ids.insert(engine.captureStack())
        }
        #expect(ids.count == 1, "the same call site gives the same stack every time")
    }
}
