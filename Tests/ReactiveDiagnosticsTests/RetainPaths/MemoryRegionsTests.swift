import Foundation
import ReactiveDiagnosticsRetainPaths
import Testing

/// The walker's reading of `/proc/self/maps`, parsed byte by byte.
@Suite("Memory regions")
struct MemoryRegionsTests {
    @Test func readsEveryFieldOfTheMapsFormat() {
        let maps = """
            55d0c0a00000-55d0c0a21000 r--p 00000000 08:01 1234                       /usr/bin/tool
            55d0c0a21000-55d0c0a40000 r-xp 00021000 08:01 1234                       /usr/bin/tool
            55d0c0a40000-55d0c0a42000 rw-p 00040000 08:01 1234                       /usr/bin/tool
            55d0c0a42000-55d0c0a44000 rw-p 00000000 00:00 0 
            55d0c1000000-55d0c1200000 rw-p 00000000 00:00 0                          [heap]
            7f00aa000000-7f00aa001000 rw-s 00000000 00:05 99                         /tmp/a b (deleted)
            7f00ab000000-7f00ab001000 ---p 00000000 00:00 0
            not a mapping
            7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]
            """
        let regions = RetainPathInspection.memoryRegions(parsing: maps)
        #expect(regions.count == 8)
        #expect(regions[0].start == 0x55d0_c0a0_0000 && regions[0].end == 0x55d0_c0a2_1000)
        #expect(regions.map(\.permissions) == ["r--", "r-x", "rw-", "rw-", "rw-", "rw-", "---", "rw-"])
        #expect(regions[1].path == "/usr/bin/tool" && regions[1].image == "/usr/bin/tool")
        #expect(regions[3].path == nil && regions[3].image == "/usr/bin/tool", "an image's .bss follows its data")
        #expect(regions[4].path == "[heap]" && regions[4].image == nil)
        #expect(regions[5].path == "/tmp/a b (deleted)")
        #expect(regions[6].path == nil && regions[6].image == nil, "not right after a file's writable data")
        #expect(regions[7].path == "[stack]")
        #expect(RetainPathInspection.memoryRegions(parsing: "").isEmpty)
    }

    #if os(Linux)
    @Test func agreesWithASplitOfThisProcesssMaps() throws {
        let text = try String(contentsOfFile: "/proc/self/maps", encoding: .utf8)
        let regions = RetainPathInspection.memoryRegions(parsing: text)
        // An independent reading: the fields split on spaces. The process may map something
        // between the two reads, so compare the first lines' starts and paths only.
        let lines = text.split(separator: "\n").prefix(20)
        for (line, region) in zip(lines, regions) {
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            #expect(UInt(fields[0].split(separator: "-")[0], radix: 16) == region.start)
            let path = fields.count == 6 ? fields[5].trimmingCharacters(in: .whitespaces) : ""
            #expect((region.path ?? "") == path)
        }
        #expect(regions.count > 20)
    }

    /// The mappings an explanation reads are reused only while the process maps nothing new:
    /// a mapping made since, or gone since, is seen.
    @Test func aMappingMadeOrRemovedSinceIsSeen() throws {
        func covering(_ address: UInt) -> String? {
            RetainPathInspection.currentMemoryRegions().first { $0.start <= address && address < $0.end }?.permissions
        }
        _ = RetainPathInspection.currentMemoryRegions()
        let size = 1 << 20
        let mapping = try #require(
            mmap(nil, size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0).flatMap { $0 == MAP_FAILED ? nil : $0 })
        let address = UInt(bitPattern: mapping)
        #expect(covering(address) == "r--")
        #expect(mprotect(mapping, size, PROT_READ | PROT_WRITE) == 0)
        #expect(covering(address) == "rw-")
        munmap(mapping, size)
        #expect(covering(address) != "rw-", "unmapped: no longer a writable mapping there")
    }
    #endif
}
