/// Bytes copied out of the process's memory for one reading (``ProcessMemory/bytes(at:count:)``),
/// erased when released.
///
/// A copy of an object shows its header and fields exactly: left in freed heap memory, a later
/// scan for what holds an object would find the copy, believe it (its header reads as the
/// original's type) and report it as the holder. Erasing on release leaves nothing to find.
final class MemoryCopy {
    private let buffer: UnsafeMutableRawBufferPointer

    /// A copy of `bytes`.
    init(_ bytes: UnsafeRawBufferPointer) {
        buffer = .allocate(byteCount: max(bytes.count, 1), alignment: 16)
        buffer.copyMemory(from: bytes)
        count = bytes.count
    }

    deinit {
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        buffer.deallocate()
    }

    /// The number of bytes copied.
    let count: Int

    /// Runs `body` on the copied bytes.
    func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<count]))
    }
}
