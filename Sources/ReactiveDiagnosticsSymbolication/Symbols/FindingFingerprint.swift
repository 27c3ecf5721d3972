package import ReactiveDiagnosticsReport

/// A finding's stable identity: a hash of its kind, its label and the names of the first four
/// user frames of its stack (of any frame outside the system, when it has no user frame).
///
/// Raw addresses never enter it, so it survives rebuilds and ASLR; compiler glue (thunks,
/// forwarders, which differ between debug and release builds) is left out. The engine computes
/// it from the stacks it symbolized, `reactive-diag` from the frames it named in a crash
/// journal: both through this one rule, so the two agree.
///
/// ```swift
/// let fingerprint = FindingFingerprint.make(
///     kind: "leakedSubscription", label: "feed",
///     frames: [(function: "FeedViewModel.init()", category: .user)])
/// ```
package enum FindingFingerprint {
    package static func make(
        kind: String, label: String?, frames: [(function: String?, category: FrameCategory)]
    ) -> String {
        var hash = FNV1a64()
        hash.combine(kind)
        hash.combine(label ?? "")
        let named = frames.filter { !($0.function.map(FrameClassifier.isGlue) ?? false) }
        let user = named.filter { $0.category == .user }
        let chosen = user.isEmpty ? named.filter { $0.category != .system } : user
        for frame in chosen.prefix(4) {
            hash.combine(frame.function ?? "?")
        }
        return hash.hex
    }

    /// The label a finding's fingerprint takes: a folded chain's keeps only its downstream
    /// stage's own name (`Map` of `Map<Filter<PassthroughSubject<Int, Never>>, Int>`), so that
    /// adding an operator upstream keeps it; any other finding's label as it is.
    ///
    /// ```swift
    /// FindingFingerprint.label("Map<Just<Int>, Int>", folded: true)   // "Map"
    /// ```
    package static func label(_ label: String?, folded: Bool) -> String? {
        guard folded, let label, let open = label.firstIndex(of: "<"), open != label.startIndex else { return label }
        return String(label[..<open])
    }
}

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
