import CReactiveDiagnostics
import Foundation
import _ReactiveDiagnosticsSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The process's memory mappings, read once per walk (`/proc/self/maps`): where code, images'
/// read-only data and writable memory are. The walker checks pointers against them before
/// believing a word is a function, a type descriptor or a heap object.
struct MemoryRegions: Sendable {
    /// One mapping.
    struct Region: Sendable {
        var start: UInt
        var end: UInt
        var readable: Bool
        var writable: Bool
        var executable: Bool
        /// The file mapped, when it is one (an image); `[heap]`, `[stack]`… otherwise.
        var path: String?

        /// The image the mapping belongs to: its file, or for an image's zero-filled data
        /// (`.bss`, mapped anonymously right after the file's data) the file before it.
        var image: String?

        var isFileBacked: Bool { path?.hasPrefix("/") ?? false }
    }

    /// The mappings, sorted by address.
    let regions: [Region]
    /// Whether the mappings could be read (on platforms without `/proc` they cannot, and the
    /// checks that need them answer permissively or not at all, as each one says).
    let isKnown: Bool

    /// Reads this process's mappings now.
    static func current() -> MemoryRegions {
        #if os(Linux) || os(Android)
        guard let text = readProcFile("/proc/self/maps") else {
            return MemoryRegions(regions: [], isKnown: false)
        }
        // The mappings of the last explanation, when nothing was mapped or unmapped since: a
        // checkpoint's explanations, and the next test's, often read the same text.
        if let last = lastRead.withLock({ $0 }),
            last.text.withUnsafeBytes({ last in text.withUnsafeBytes { sameBytes(last, $0) } })
        {
            return last.regions
        }
        let regions = MemoryRegions(parsing: text)
        lastRead.withLock { $0 = (text, regions) }
        return regions
        #else
        return MemoryRegions(regions: [], isKnown: false)
        #endif
    }

    /// The text `current()` read last and what it parsed to (one copy, replaced each time).
    private static let lastRead = LockedValue<(text: [UInt8], regions: MemoryRegions)?>(nil)

    /// Whether two byte ranges hold the same bytes, by `memcmp` (`==` on arrays, or
    /// `elementsEqual`, compares element by element through generic code: half a millisecond
    /// for a long maps text in a debug build).
    private static func sameBytes(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Bool {
        left.count == right.count && (left.count == 0 || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0)
    }

    #if os(Linux) || os(Android)
    /// Reads a `/proc` file to its end (they report a size of 0, so readers that trust the
    /// size get nothing or a truncated copy).
    private static func readProcFile(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return bytes
    }
    #endif

    init(regions: [Region], isKnown: Bool) {
        self.regions = regions.sorted { $0.start < $1.start }
        self.isKnown = isKnown
    }

    /// Parses the `/proc/PID/maps` format: `start-end perms offset dev inode [path]`.
    init(parsing text: String) {
        self.init(parsing: Array(text.utf8))
    }

    /// Parses the `/proc/PID/maps` format from its bytes, field by field (read at every
    /// explanation: splitting a thousand lines into strings cost more than the walk itself).
    init(parsing bytes: [UInt8]) {
        var regions: [Region] = []
        bytes.withUnsafeBufferPointer { text in
            guard let base = text.baseAddress else { return }
            var position = 0
            while position < text.count {
                // The line's end found by memchr: a byte loop here ran over every byte of the
                // text in a debug build's Swift.
                var end = text.count
                if let newline = memchr(base + position, 0x0a, text.count - position) {
                    end = UnsafePointer(newline.assumingMemoryBound(to: UInt8.self)) - base
                }
                if let region = Self.region(in: text, from: position, to: end, after: regions.last) {
                    regions.append(region)
                }
                position = end + 1
            }
        }
        self.init(regions: regions, isKnown: !regions.isEmpty)
    }

    /// One line, `text[from..<to]`; `previous` is the mapping before it. The line is read in C
    /// (`rdiag_maps_parse_line`): byte by byte in a debug build's Swift it took milliseconds per
    /// explanation. A path is decoded once for the consecutive mappings of one file.
    private static func region(
        in text: UnsafeBufferPointer<UInt8>, from: Int, to end: Int, after previous: Region?
    ) -> Region? {
        var start: UInt64 = 0
        var stop: UInt64 = 0
        var permissions: Int32 = 0
        var pathStart = 0
        var pathLength = 0
        guard
            rdiag_maps_parse_line(
                text.baseAddress! + from, end - from, &start, &stop, &permissions, &pathStart, &pathLength) == 1
        else { return nil }
        var file: String?
        if pathLength > 0 {
            let bytes = UnsafeBufferPointer(rebasing: text[(from + pathStart)..<(from + pathStart + pathLength)])
            if var known = previous?.path,
                known.withUTF8({ sameBytes(UnsafeRawBufferPointer($0), UnsafeRawBufferPointer(bytes)) })
            {
                file = known
            } else {
                file = String(decoding: bytes, as: UTF8.self)
            }
        }
        let writable = permissions & 2 != 0
        var image = file?.hasPrefix("/") == true ? file : nil
        if file == nil, let previous, previous.end == UInt(start), previous.writable, previous.isFileBacked {
            image = previous.path
        }
        return Region(
            start: UInt(start), end: UInt(stop), readable: permissions & 1 != 0, writable: writable,
            executable: permissions & 4 != 0, path: file, image: image)
    }

    /// The mapping containing `address`.
    func region(containing address: UInt) -> Region? {
        var low = 0
        var high = regions.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let region = regions[middle]
            if address < region.start {
                high = middle - 1
            } else if address >= region.end {
                low = middle + 1
            } else {
                return region
            }
        }
        return nil
    }

    /// Whether `address` is in a mapped file (an image): where type descriptors, capture
    /// descriptors and mangled names live. Permissive when the mappings are unknown.
    func isInImage(_ address: UInt) -> Bool {
        guard isKnown else { return address != 0 }
        return region(containing: address)?.isFileBacked ?? false
    }

    /// Whether `address` is in executable memory (a function pointer). Permissive when the
    /// mappings are unknown.
    func isExecutable(_ address: UInt) -> Bool {
        guard isKnown else { return address != 0 }
        return region(containing: address)?.executable ?? false
    }

    /// Whether `address` is in readable, writable memory (where live heap objects are).
    /// Permissive when the mappings are unknown.
    func isWritable(_ address: UInt) -> Bool {
        guard isKnown else { return address != 0 }
        guard let region = region(containing: address) else { return false }
        return region.readable && region.writable
    }
}
