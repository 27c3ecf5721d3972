#if canImport(Glibc)
import Glibc
#endif
import ReactiveDiagnostics
import Testing
import ReactiveDiagnosticsRetainPaths

/// The scan for what holds an object, against the walk's own copies of memory: a copy shows
/// an object's header and fields exactly, so one the scan could see would be reported as a
/// holder (a live copy in the walk's page cache, or a stale one freed by an earlier walk,
/// long after the original let go). Found on RxSwift's hooked subscriptions, whose
/// explanation starts at whatever holds their call-stack array: the first such "holder" was
/// now and then a copy, and the retain path said nothing held the subscription.
@Suite struct HolderScanTests {
    final class Target {}

    final class Holder {
        var target: Target?
        init(_ target: Target) { self.target = target }
    }

    @Test func theObjectThatHoldsItIsItsOnlyHolderAfterTheWalkReadIt() {
        let target = Target()
        let holder = Holder(target)
        let holders = RetainPathInspection.holders(of: target, afterReading: [holder])
        expect(holders, are: [holder])
        withExtendedLifetime(holder) {}
    }

    @Test func anEarlierWalksCopiesHoldNothing() {
        let target = Target()
        let holders = (0..<8).map { _ in Holder(target) }
        // Walks that read the holders, then end (their copies are released).
        for holder in holders {
            _ = RetainPathInspection.inspect(holder)
        }
        for holder in holders {
            holder.target = nil
        }
        #expect(RetainPathInspection.holders(of: target).isEmpty)
        withExtendedLifetime(holders) {}
    }

    @Test func anotherWalksCopiesHoldNothing() {
        // Tests run in parallel: another test's walk may have read the holder's page.
        let target = Target()
        let holder = Holder(target)
        let holders = RetainPathInspection.whileAnotherWalkHasRead([holder]) {
            RetainPathInspection.holders(of: target)
        }
        expect(holders, are: [holder])
        withExtendedLifetime(holder) {}
    }

    @Test func everyHolderIsFound() {
        // The filter removes copies only: each real holder is still found.
        let target = Target()
        let holders = (0..<4).map { _ in Holder(target) }
        let found = RetainPathInspection.holders(of: target, afterReading: holders)
        expect(found, are: holders)
        withExtendedLifetime(holders) {}
    }

    @Test func aSearchThatKeepsItsCopyFindsTheSameHoldersAtEachLevel() {
        // The first level copies memory, the next ones scan the copy: the same holder, and
        // never the copy itself.
        let target = Target()
        let holders = (0..<3).map { _ in Holder(target) }
        let levels = RetainPathInspection.holdersAtEachLevel(of: target, levels: 3)
        #expect(levels.count == 3)
        for found in levels {
            expect(found, are: holders)
        }
        withExtendedLifetime(holders) {}
    }

    @Test func anotherSearchsKeptCopyHoldsNothing() {
        let target = Target()
        let holder = Holder(target)
        let found = RetainPathInspection.whileAnotherSearchKeepsACopy(of: target) {
            RetainPathInspection.holders(of: target)
        }
        expect(found, are: [holder])
        withExtendedLifetime(holder) {}
    }

    @Test func glibcsChunkHeadersAreUsedOnlyWhereTheyExist() {
        // A sanitizer's allocator keeps no size word before an allocation; the word there
        // may look like one by chance (it is the end of another allocation), so the scan
        // must know which allocator it reads, not guess from one object.
        #if os(Linux)
        let runtimes: [String] = ["__tsan_init", "__asan_init", "__msan_init"]
        let sanitizer = runtimes.contains { dlsym(nil, $0) != nil }
        #expect(RetainPathInspection.allocatorHasChunkHeaders == !sanitizer)
        #else
        #expect(!RetainPathInspection.allocatorHasChunkHeaders)
        #endif
        // Under a sanitizer, its runtime places each hit in its allocation instead.
        #expect(
            RetainPathInspection.allocationsAreKnown
                == (RetainPathInspection.allocatorHasChunkHeaders || sanitizerRuntime))
    }

    /// Whether a sanitizer's runtime is in the process (its allocator, its interface).
    private var sanitizerRuntime: Bool {
        #if os(Linux)
        let runtimes: [String] = ["__tsan_init", "__asan_init", "__msan_init"]
        return runtimes.contains { dlsym(nil, $0) != nil }
        #else
        return false
        #endif
    }

    /// The holders found are exactly `expected` where each hit is placed in its allocation
    /// (glibc's chunk headers, or a sanitizer's runtime); where object starts are guessed,
    /// every expected holder is among them.
    private func expect(_ found: [UInt], are expected: [Holder], sourceLocation: SourceLocation = #_sourceLocation) {
        let addresses = Set(expected.map(RetainPathInspection.address(of:)))
        if RetainPathInspection.allocationsAreKnown {
            #expect(
                Set(found) == addresses && found.count == addresses.count, "\(found)", sourceLocation: sourceLocation)
        } else {
            #expect(addresses.isSubset(of: found), "\(found)", sourceLocation: sourceLocation)
        }
    }
}
