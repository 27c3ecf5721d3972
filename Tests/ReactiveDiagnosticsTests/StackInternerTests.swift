import ReactiveDiagnostics
import Testing

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
