import CReactiveDiagnostics

/// A fault-free view of this process's memory for one walk.
///
/// Every read goes through `rdiag_read_memory` (`process_vm_readv` on our own pid), which
/// returns an error instead of faulting, so a word that is not what the walker expected
/// (a stale pointer, a layout it misread, memory another thread just freed) ends a branch
/// of the walk as "unknown", never the process. Pages are read once and kept until the walker
/// calls into the runtime (``forgetPages()``): objects that share a page cost one system call.
/// Nothing is ever retained, released or written.
final class ProcessMemory {
    static let pageSize = 4096
    /// The most bytes one read may ask for (a larger count is a misread length, not data).
    static let readLimit = 1 << 22

    private var pages: [UInt: [UInt8]] = [:]
    private var unreadable: Set<UInt> = []
    /// Pages kept at most (then reads go straight to the system, uncached).
    let pageBudget: Int
    /// System calls made so far.
    private(set) var systemReads = 0

    init(pageBudget: Int = 4096) {
        self.pageBudget = pageBudget
    }

    /// The page holding `address`, read on first use; `nil` when it cannot be read.
    private func page(_ base: UInt) -> [UInt8]? {
        if let cached = pages[base] {
            return cached
        }
        if unreadable.contains(base) {
            return nil
        }
        var bytes = [UInt8](repeating: 0, count: Self.pageSize)
        systemReads += 1
        let copied = bytes.withUnsafeMutableBytes { rdiag_read_memory(base, $0.baseAddress!, Self.pageSize) }
        guard copied == Self.pageSize else {
            unreadable.insert(base)
            return nil
        }
        if pages.count < pageBudget {
            pages[base] = bytes
        }
        return bytes
    }

    /// Copies `count` bytes at `address` into `body`'s buffer; `nil` when any of them cannot
    /// be read.
    func withBytes<Result>(at address: UInt, count: Int, _ body: (UnsafeRawBufferPointer) -> Result) -> Result? {
        guard count >= 0, count <= Self.readLimit, address > 0, address <= UInt.max - UInt(count) else { return nil }
        let pageMask = ~UInt(Self.pageSize - 1)
        let first = address & pageMask
        if count <= Self.pageSize, (address &+ UInt(max(count, 1)) - 1) & pageMask == first {
            guard let page = page(first) else { return nil }
            let start = Int(address - first)
            return page.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[start..<(start + count)])) }
        }
        var bytes = [UInt8]()
        bytes.reserveCapacity(count)
        var cursor = address
        let end = address &+ UInt(count)
        while cursor < end {
            let base = cursor & pageMask
            guard let page = page(base) else { return nil }
            let start = Int(cursor - base)
            let length = min(Self.pageSize - start, Int(end - cursor))
            bytes.append(contentsOf: page[start..<(start + length)])
            cursor += UInt(length)
        }
        return bytes.withUnsafeBytes(body)
    }

    /// Forgets every page read so far. Called after each call into the runtime that may
    /// instantiate metadata (resolving a type name, listing a type's fields): new metadata can
    /// land on a heap page read before it existed.
    func forgetPages() {
        pages.removeAll(keepingCapacity: true)
        unreadable.removeAll(keepingCapacity: true)
    }

    /// `count` bytes at `address`, or `nil`.
    func bytes(at address: UInt, count: Int) -> [UInt8]? {
        withBytes(at: address, count: count) { Array($0) }
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
