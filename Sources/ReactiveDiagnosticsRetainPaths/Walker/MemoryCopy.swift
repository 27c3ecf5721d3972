/// Bytes copied out of the process's memory for one reading (``ProcessMemory/bytes(at:count:)``),
/// erased when released.
///
/// A copy of an object shows its header and fields exactly: a scan for what holds an object
/// that took the copy for an object would report it as the holder. So the copy starts
/// ``ProcessMemory/copyOffset`` bytes past a 16-byte boundary, where scans never look for an
/// object, and it is erased when released, leaving nothing behind in freed memory.
final class MemoryCopy {
    private let buffer: UnsafeMutableRawBufferPointer

    /// A copy of `bytes`.
    init(_ bytes: UnsafeRawBufferPointer) {
        buffer = .allocate(byteCount: bytes.count + 16, alignment: 16)
        CopiedMemory.add(CopiedMemory.range(of: buffer))
        count = bytes.count
        UnsafeMutableRawBufferPointer(rebasing: buffer[ProcessMemory.copyOffset..<(ProcessMemory.copyOffset + count)])
            .copyMemory(from: bytes)
    }

    deinit {
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        CopiedMemory.remove(CopiedMemory.range(of: buffer))
        buffer.deallocate()
    }

    /// The number of bytes copied.
    let count: Int

    /// Runs `body` on the copied bytes.
    func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(
            UnsafeRawBufferPointer(
                rebasing: UnsafeRawBufferPointer(buffer)[ProcessMemory.copyOffset..<(ProcessMemory.copyOffset + count)])
        )
    }
}
