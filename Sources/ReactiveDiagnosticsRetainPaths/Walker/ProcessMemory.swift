import CReactiveDiagnostics
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A fault-free view of this process's memory for one walk.
///
/// Every read goes through `rdiag_read_memory` (`process_vm_readv` on our own pid), which
/// returns an error instead of faulting, so a word that is not what the walker expected
/// (a stale pointer, a layout it misread, memory another thread just freed) ends a branch
/// of the walk as "unknown", never the process. Pages are read once and kept until the walker
/// calls into the runtime (``forgetPages()``): objects that share a page cost one system call.
/// Nothing is ever retained, released or written.
///
/// A copy of memory is a perfect likeness of the objects in it (header, reference count and
/// fields), and scans for holders read the whole heap, this walk's and any other running at
/// the same time: a copy they took for an object would be reported as a holder, even long
/// after the original changed. So every copy starts ``copyOffset`` bytes past a 16-byte
/// boundary, where no heap object starts and no scan looks for one; pages are kept in a
/// mapping of their own, unmapped with the walk; every other copy is erased
/// when released; and while a copy exists it is listed in ``CopiedMemory``, which scans skip
/// (a sanitizer's allocator leaves them guessing object starts, offset or not).
final class ProcessMemory {
    static let pageSize = 4096
    /// How far past a 16-byte boundary every copy starts: heap objects start on 16-byte
    /// boundaries (malloc's alignment, a sanitizer's too), and scans only look for objects
    /// there, so nothing inside a copy is ever taken for an object.
    static let copyOffset = 8
    /// The bytes a kept page takes in the mapping (the page, shifted by ``copyOffset``).
    private static let slotSize = pageSize + 16
    /// The most bytes one read may ask for (a larger count is a misread length, not data).
    static let readLimit = 1 << 22

    /// Page base → slot in `arena`.
    private var pages: [UInt: Int] = [:]
    private var unreadable: Set<UInt> = []
    /// Where kept pages live: `pageBudget` page-sized slots, mapped on first use (reserved,
    /// not committed: a slot costs memory once used).
    private var arena: UnsafeMutableRawPointer?
    private var arenaFailed = false
    /// Pages kept at most (then reads go straight to the system, uncached).
    let pageBudget: Int
    /// System calls made so far.
    private(set) var systemReads = 0
    /// Context descriptors already checked during this walk
    /// (``ObjectClassifier/isNameableDescriptor(_:)``), with the answer.
    var rememberedDescriptors: [UInt: Bool] = [:]

    init(pageBudget: Int = 4096) {
        self.pageBudget = pageBudget
    }

    deinit {
        if let arena {
            CopiedMemory.remove(arenaRange(arena))
            munmap(arena, pageBudget * Self.slotSize)
        }
    }

    private func arenaRange(_ arena: UnsafeMutableRawPointer) -> Range<UInt> {
        let start = UInt(bitPattern: arena)
        return start..<(start + UInt(pageBudget * Self.slotSize))
    }

    /// The slots for kept pages, mapped on first use; `nil` when mapping failed (then nothing
    /// is kept).
    private func keptPages() -> UnsafeMutableRawPointer? {
        if let arena { return arena }
        guard !arenaFailed, pageBudget > 0 else { return nil }
        let mapped = mmap(
            nil, pageBudget * Self.slotSize, PROT_READ | PROT_WRITE,
            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
        guard let mapped, mapped != MAP_FAILED else {
            arenaFailed = true
            return nil
        }
        arena = mapped
        CopiedMemory.add(arenaRange(mapped))
        return mapped
    }

    /// Runs `body` on the page whose base is `base` (read on first use, and kept while the
    /// budget allows); `nil` when it cannot be read.
    private func withPage<Result>(_ base: UInt, _ body: (UnsafeRawBufferPointer) -> Result) -> Result? {
        if let slot = pages[base], let arena {
            return body(
                UnsafeRawBufferPointer(start: arena + slot * Self.slotSize + Self.copyOffset, count: Self.pageSize))
        }
        if unreadable.contains(base) {
            return nil
        }
        systemReads += 1
        if pages.count < pageBudget, let arena = keptPages() {
            let slot = pages.count
            let page = arena + slot * Self.slotSize + Self.copyOffset
            guard rdiag_read_memory(base, page, Self.pageSize) == Self.pageSize else {
                unreadable.insert(base)
                return nil
            }
            pages[base] = slot
            return body(UnsafeRawBufferPointer(start: page, count: Self.pageSize))
        }
        return Self.withErasedCopy(count: Self.pageSize) { page in
            guard rdiag_read_memory(base, page.baseAddress!, Self.pageSize) == Self.pageSize else {
                unreadable.insert(base)
                return nil
            }
            return body(UnsafeRawBufferPointer(page))
        }
    }

    /// Runs `body` on a heap buffer of `count` bytes, ``copyOffset`` past a 16-byte boundary,
    /// that is erased before it is freed.
    private static func withErasedCopy<Result>(count: Int, _ body: (UnsafeMutableRawBufferPointer) -> Result) -> Result
    {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count + 16, alignment: 16)
        CopiedMemory.add(CopiedMemory.range(of: buffer))
        defer {
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
            CopiedMemory.remove(CopiedMemory.range(of: buffer))
            buffer.deallocate()
        }
        return body(UnsafeMutableRawBufferPointer(rebasing: buffer[copyOffset..<(copyOffset + count)]))
    }

    /// Copies `count` bytes at `address` into `body`'s buffer; `nil` when any of them cannot
    /// be read.
    func withBytes<Result>(at address: UInt, count: Int, _ body: (UnsafeRawBufferPointer) -> Result) -> Result? {
        guard count >= 0, count <= Self.readLimit, address > 0, address <= UInt.max - UInt(count) else { return nil }
        let pageMask = ~UInt(Self.pageSize - 1)
        let first = address & pageMask
        if count <= Self.pageSize, (address &+ UInt(max(count, 1)) - 1) & pageMask == first {
            let start = Int(address - first)
            return withPage(first) { body(UnsafeRawBufferPointer(rebasing: $0[start..<(start + count)])) }
        }
        return Self.withErasedCopy(count: count) { bytes -> Result? in
            var cursor = address
            var filled = 0
            let end = address &+ UInt(count)
            while cursor < end {
                let base = cursor & pageMask
                let start = Int(cursor - base)
                let length = min(Self.pageSize - start, Int(end - cursor))
                let copied: Void? = withPage(base) { page in
                    UnsafeMutableRawBufferPointer(rebasing: bytes[filled..<(filled + length)])
                        .copyMemory(from: UnsafeRawBufferPointer(rebasing: page[start..<(start + length)]))
                }
                guard copied != nil else { return nil }
                filled += length
                cursor += UInt(length)
            }
            return body(UnsafeRawBufferPointer(rebasing: bytes[0..<count]))
        }
    }

    /// Forgets every page read so far. Called after each call into the runtime that may
    /// instantiate metadata (resolving a type name, listing a type's fields): new metadata can
    /// land on a heap page read before it existed.
    func forgetPages() {
        pages.removeAll(keepingCapacity: true)
        unreadable.removeAll(keepingCapacity: true)
    }

    /// A copy of the `count` bytes at `address` (erased when released), or `nil`.
    func bytes(at address: UInt, count: Int) -> MemoryCopy? {
        withBytes(at: address, count: count) { MemoryCopy($0) }
    }

    /// The pointer-sized word at `address`, or `nil`.
    func word(at address: UInt) -> UInt? {
        withBytes(at: address, count: MemoryLayout<UInt>.size) { $0.loadUnaligned(as: UInt.self) }
    }

    /// The 32-bit word at `address`, or `nil`.
    func uint32(at address: UInt) -> UInt32? {
        withBytes(at: address, count: 4) { $0.loadUnaligned(as: UInt32.self) }
    }

    /// The 16-bit word at `address`, or `nil`.
    func uint16(at address: UInt) -> UInt16? {
        withBytes(at: address, count: 2) { $0.loadUnaligned(as: UInt16.self) }
    }

    /// The target of the 32-bit relative pointer at `address` (`nil` when null or unreadable).
    func relativePointer(at address: UInt) -> UInt? {
        guard let raw = withBytes(at: address, count: 4, { $0.loadUnaligned(as: Int32.self) }), raw != 0 else {
            return nil
        }
        return UInt(bitPattern: Int(bitPattern: address) &+ Int(raw))
    }

    /// The target of a relative pointer that may be indirect (low bit set: it points at a
    /// pointer to the target), as context descriptors' parent pointers are.
    func indirectablePointer(at address: UInt) -> UInt? {
        guard let raw = withBytes(at: address, count: 4, { $0.loadUnaligned(as: Int32.self) }), raw != 0 else {
            return nil
        }
        let target = UInt(bitPattern: Int(bitPattern: address) &+ Int(raw & ~1))
        return raw & 1 == 0 ? target : word(at: target)
    }

    /// A NUL-terminated C string of at most `limit` bytes, or `nil`.
    func cString(at address: UInt, limit: Int = 512) -> String? {
        var bytes: [UInt8] = []
        var cursor = address
        while bytes.count < limit {
            guard let byte = withBytes(at: cursor, count: 1, { $0[0] }) else { return nil }
            if byte == 0 {
                return String(decoding: bytes, as: UTF8.self)
            }
            bytes.append(byte)
            cursor += 1
        }
        return nil
    }
}
