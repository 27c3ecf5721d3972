/// A fast mix of raw addresses for the stack interner's table (not stable across runs).
///
/// Only the innermost 16 frames and the depth are hashed: distinct call sites almost always
/// differ there, and the interner compares whole stacks anyway, so deeper frames would only
/// make every lookup slower.
@inline(__always)
func mixAddresses(_ frames: UnsafeBufferPointer<UInt>) -> UInt64 {
    var hash: UInt64 = 0x9e37_79b9_7f4a_7c15 ^ UInt64(frames.count)
    for index in 0..<min(frames.count, 16) {
        hash = (hash ^ UInt64(frames[index])) &* 0xff51_afd7_ed55_8ccd
    }
    return hash ^ (hash >> 29)
}
