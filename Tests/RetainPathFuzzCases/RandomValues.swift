import ReactiveDiagnostics

/// Random values that hide the marker at random places, for the fuzz property: the walker
/// finds exactly as many strong references to the marker as the value holds, whatever shape
/// holds them.
indirect enum RandomValue {
    case marker(Marker)
    case number(Int)
    case text(String)
    case list([RandomValue])
    case map([String: RandomValue])
    case optional(RandomValue?)
    case existential(any Describing)
    case closure(() -> Void)
    case pair((RandomValue, Int))
    case weakly(WeakHolder)
    case set(Set<Marker>)
}

/// A boxed value in an existential.
struct Tree: Describing {
    let value: RandomValue
}

/// A small, seeded, deterministic generator (SplitMix64).
public struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

public enum RandomValues {
    /// A random value up to `depth` levels deep, with its expected count of strong references
    /// to `marker` (closures count what they capture).
    static func make(
        _ marker: Marker, depth: Int, using generator: inout SeededGenerator
    ) -> (value: RandomValue, expected: Int) {
        let choice = depth <= 0 ? Int.random(in: 0...2, using: &generator) : Int.random(in: 0...10, using: &generator)
        switch choice {
        case 0: return (.marker(marker), 1)
        case 1: return (.number(Int.random(in: 0...100, using: &generator)), 0)
        case 2: return (.text(String(repeating: "t", count: Int.random(in: 0...40, using: &generator))), 0)
        case 3:
            var values: [RandomValue] = []
            var expected = 0
            for _ in 0..<Int.random(in: 0...3, using: &generator) {
                let (value, count) = make(marker, depth: depth - 1, using: &generator)
                values.append(value)
                expected += count
            }
            return (.list(values), expected)
        case 4:
            var values: [String: RandomValue] = [:]
            var expected = 0
            for index in 0..<Int.random(in: 0...3, using: &generator) {
                let (value, count) = make(marker, depth: depth - 1, using: &generator)
                values["k\(index)"] = value
                expected += count
            }
            return (.map(values), expected)
        case 5:
            guard Bool.random(using: &generator) else { return (.optional(nil), 0) }
            let (value, count) = make(marker, depth: depth - 1, using: &generator)
            return (.optional(value), count)
        case 6:
            let (value, count) = make(marker, depth: depth - 1, using: &generator)
            return (.existential(Tree(value: value)), count)
        case 7:
            let (value, count) = make(marker, depth: depth - 1, using: &generator)
            return (.closure({ use(value) }), count)
        case 8:
            let (value, count) = make(marker, depth: depth - 1, using: &generator)
            return (.pair((value, 1)), count)
        case 9:
            return (.weakly(WeakHolder(marker: marker)), 0)
        default:
            let withMarker = Bool.random(using: &generator)
            return (.set(withMarker ? [marker, Marker(id: 1)] : [Marker(id: 2)]), withMarker ? 1 : 0)
        }
    }

    /// Builds `count` random values from `seed` and checks each; returns what went wrong.
    public static func check(seed: UInt64, count: Int, depth: Int = 3) -> [String] {
        var generator = SeededGenerator(seed: seed)
        var failures: [String] = []
        for index in 0..<count {
            let marker = Marker()
            let (value, expected) = make(marker, depth: depth, using: &generator)
            let holder = Holder { use(value) }
            failures += withExtendedLifetime((marker, holder, value)) {
                WalkCase.compare(
                    holder: holder, marker: marker, expectation: .strong(expected),
                    name: "random value \(index) of seed \(seed)")
            }
        }
        return failures
    }
}
