/// 64-bit FNV-1a, used for fingerprints (stable across runs and platforms, unlike `Hasher`).
struct FNV1a64 {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func combine(_ string: String) {
        for byte in string.utf8 {
            value ^= UInt64(byte)
            value &*= 0x0000_0100_0000_01b3
        }
        // A separator byte so ("ab","c") and ("a","bc") differ.
        value ^= 0xff
        value &*= 0x0000_0100_0000_01b3
    }

    var hex: String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

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
