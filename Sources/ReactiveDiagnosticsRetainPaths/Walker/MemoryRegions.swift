import Foundation

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
        return MemoryRegions(parsing: text)
        #else
        return MemoryRegions(regions: [], isKnown: false)
        #endif
    }

    #if os(Linux) || os(Android)
    /// Reads a `/proc` file to its end (they report a size of 0, so readers that trust the
    /// size get nothing or a truncated copy).
    private static func readProcFile(_ path: String) -> String? {
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
        return String(decoding: bytes, as: UTF8.self)
    }
    #endif

    init(regions: [Region], isKnown: Bool) {
        self.regions = regions.sorted { $0.start < $1.start }
        self.isKnown = isKnown
    }

    /// Parses the `/proc/PID/maps` format: `start-end perms offset dev inode [path]`.
    init(parsing text: String) {
        var regions: [Region] = []
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count >= 5 else { continue }
            let bounds = fields[0].split(separator: "-")
            guard bounds.count == 2, let start = UInt(bounds[0], radix: 16), let end = UInt(bounds[1], radix: 16) else {
                continue
            }
            let permissions = Array(fields[1].utf8)
            guard permissions.count >= 3 else { continue }
            let path = fields.count == 6 ? String(fields[5]).trimmingCharacters(in: .whitespaces) : nil
            let file = path?.isEmpty == true ? nil : path
            var image = file?.hasPrefix("/") == true ? file : nil
            if file == nil, let previous = regions.last, previous.end == start, previous.writable, previous.isFileBacked
            {
                image = previous.path
            }
            regions.append(
                Region(
                    start: start, end: end, readable: permissions[0] == UInt8(ascii: "r"),
                    writable: permissions[1] == UInt8(ascii: "w"), executable: permissions[2] == UInt8(ascii: "x"),
                    path: file, image: image))
        }
        self.init(regions: regions, isKnown: !regions.isEmpty)
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
