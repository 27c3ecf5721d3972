import Foundation

/// Every kind of value a closure can capture, each hiding the marker (or not) in its own way.
public enum WalkCases {
    /// The matrix the walker is held to, in debug and release builds alike.
    public static let all: [WalkCase] =
        references + values + enums + existentials + collections + closures
        + generics + others

    static let references: [WalkCase] = [
        WalkCase("a class reference (the context is the object)", .strong(1)) { marker in
            Holder { use(marker) }
        },
        WalkCase("a class reference and an Int", .strong(1)) { marker in
            let number = Int.random(in: 0...9)
            return Holder {
                use(marker); use(number)
            }
        },
        WalkCase("the same object twice", .strong(2)) { marker in
            let other = marker
            return Holder {
                use(marker); use(other)
            }
        },
        WalkCase("[weak marker]", .notStrong) { marker in
            Holder { [weak marker] in use(marker as Any) }
        },
        WalkCase("[unowned marker]", .notStrong) { marker in
            Holder { [unowned marker] in use(marker) }
        },
        WalkCase("[unowned(unsafe) marker]", .notStrong) { marker in
            Holder { [unowned(unsafe) marker] in use(marker) }
        },
        WalkCase("a struct with a weak property", .notStrong) { marker in
            let weakly = WeakHolder(marker: marker)
            return Holder { use(weakly) }
        },
    ]

    static let values: [WalkCase] = [
        WalkCase("a struct with a class property", .strong(1)) { marker in
            let value = Pair(marker: marker, number: 7)
            return Holder { use(value) }
        },
        WalkCase("nested structs", .strong(2)) { marker in
            let value = Nested(
                first: Pair(marker: marker, number: 1), second: Pair(marker: marker, number: 2), label: "x")
            return Holder { use(value) }
        },
        WalkCase("a tuple", .strong(1)) { marker in
            let value = (marker, 1, "text", 2.5)
            return Holder { use(value) }
        },
        WalkCase("a large struct (stored outside an existential's buffer)", .strong(1)) { marker in
            let value: any Describing = Large(marker: marker)
            return Holder { use(value) }
        },
        WalkCase("a captured var (a box)", .strong(1)) { marker in
            var value = marker
            let holder = Holder { use(value) }
            value = marker
            return holder
        },
        WalkCase("a var the closure mutates (a box)", .strong(1)) { marker in
            var count = 0
            var value: Marker? = marker
            return Holder {
                count += 1
                if count > 1_000 { value = nil }
                use(value as Any)
            }
        },
        WalkCase("strings, characters and substrings", .strong(0)) { _ in
            let text = String(repeating: "long text ", count: 10)
            let character: Character = "é"
            let part = text.dropFirst(3)
            return Holder {
                use(text); use(character); use(part)
            }
        },
        WalkCase("plain data (Double, SIMD, metatypes)", .strong(0)) { _ in
            let number = 2.5
            let vector = SIMD4<Float>(1, 2, 3, 4)
            let type: Any.Type = Marker.self
            return Holder {
                use(number); use(vector); use(type)
            }
        },
    ]

    static let enums: [WalkCase] = [
        WalkCase("Optional.some", .strong(1)) { marker in
            let value: Marker? = marker
            return Holder { use(value as Any) }
        },
        WalkCase("Optional.none", .strong(0)) { _ in
            let value: Marker? = nil
            return Holder { use(value as Any) }
        },
        WalkCase("an enum with one payload", .strong(1)) { marker in
            let value = Single.object(marker)
            return Holder { use(value) }
        },
        WalkCase("an enum with several class payloads (tag in spare bits)", .strong(1)) { marker in
            let value = Several.second(marker)
            return Holder { use(value) }
        },
        WalkCase("an enum in a case without the marker", .strong(0)) { _ in
            let value = Several.number(42)
            return Holder { use(value) }
        },
        WalkCase("an indirect enum", .strong(2)) { marker in
            let value = Chain.link(marker, .link(marker, .end))
            return Holder { use(value) }
        },
        WalkCase("Result", .strong(1)) { marker in
            let value: Result<Marker, CocoaError> = .success(marker)
            return Holder { use(value) }
        },
        WalkCase("an enum with an existential payload", .strong(1)) { marker in
            let value = Wrapped.any(Pair(marker: marker, number: 3))
            return Holder { use(value) }
        },
    ]

    static let existentials: [WalkCase] = [
        WalkCase("any class-bound protocol", .strong(1)) { marker in
            let value: any ClassBound = MarkerBox(marker: marker)
            let box = value
            return Holder {
                use(box); use(marker)
            }
        },
        WalkCase("any protocol, value in the buffer", .strong(1)) { marker in
            let value: any Describing = Pair(marker: marker, number: 5)
            return Holder { use(value) }
        },
        WalkCase("Any holding an object", .strong(1)) { marker in
            let value: Any = marker
            return Holder { use(value) }
        },
        WalkCase("AnyObject", .strong(1)) { marker in
            let value: AnyObject = marker
            return Holder { use(value) }
        },
        WalkCase("an optional existential in a class, like RxSwift's BinaryDisposable", .strong(0)) { marker in
            let disposable = OptionalExistentialHolder(first: Pair(marker: marker, number: 1), second: nil)
            return Holder { use(disposable) }
        },
        WalkCase("AnyHashable", .strong(1)) { marker in
            let value = AnyHashable(marker)
            return Holder { use(value) }
        },
        WalkCase("any Error", .foundOrExplained(1)) { marker in
            let value: any Error = MarkerError(marker: marker)
            return Holder { use(value) }
        },
    ]

    static let collections: [WalkCase] = [
        WalkCase("an array", .strong(3)) { marker in
            let value = [marker, marker, marker]
            return Holder { use(value) }
        },
        WalkCase("a ContiguousArray of optionals", .strong(2)) { marker in
            let value: ContiguousArray<Marker?> = [marker, nil, marker]
            return Holder { use(value) }
        },
        WalkCase("a set", .strong(1)) { marker in
            let value: Set = [marker, Marker(id: 1)]
            return Holder { use(value) }
        },
        WalkCase("a dictionary's keys and values", .strong(2)) { marker in
            let value = [marker: Pair(marker: marker, number: 1)]
            return Holder { use(value) }
        },
        WalkCase("a dictionary of arrays of optionals", .strong(3)) { marker in
            let value: [String: [Marker?]] = ["a": [marker, nil], "b": [marker, marker]]
            return Holder { use(value) }
        },
        WalkCase("an empty array, set and dictionary", .strong(0)) { _ in
            let array: [Marker] = []
            let set: Set<Marker> = []
            let dictionary: [Marker: Marker] = [:]
            return Holder {
                use(array); use(set); use(dictionary)
            }
        },
    ]

    static let closures: [WalkCase] = [
        WalkCase("a closure capturing a closure", .strong(1)) { marker in
            let inner = { use(marker) }
            return Holder { inner() }
        },
        WalkCase("three closures deep", .strong(1)) { marker in
            let first = { use(marker) }
            let second = {
                first(); use(1)
            }
            return Holder { second() }
        },
        WalkCase("an optional closure in a struct", .strong(1)) { marker in
            let value = Callback(run: { use(marker) })
            return Holder { value.run?() }
        },
        WalkCase("a closure that captures itself (through a box)", .strong(1)) { marker in
            var recursive: (() -> Void)?
            let release = CycleRelease()
            recursive = {
                use(marker)
                if release.isRaised { recursive = nil } else if Bool.random() && false { recursive?() }
            }
            return Holder({ recursive?() }, cycleRelease: release)
        },
        WalkCase("twenty captures", .strong(4)) { marker in
            let (a, b, c, d) = (marker, 1, "two", 3.0)
            let (e, f, g, h) = (marker, [4], Pair(marker: marker, number: 5), Int8(6))
            let (i, j, k, l) = (Single.none, "t", 7 as Int?, marker)
            let (m, n, o, p) = (8, 9, 10, 11)
            let (q, r, s, t) = (12, 13, 14, 15)
            return Holder {
                use(a); use(b); use(c); use(d); use(e); use(f); use(g); use(h); use(i); use(j)
                use(k as Any); use(l); use(m); use(n); use(o); use(p); use(q); use(r); use(s); use(t)
            }
        },
    ]

    static let generics: [WalkCase] = [
        WalkCase("a generic closure capturing T = Marker", .strong(1)) { marker in
            Holder(genericClosure(marker))
        },
        WalkCase("a generic closure capturing T = a struct", .strong(1)) { marker in
            Holder(genericClosure(Pair(marker: marker, number: 1)))
        },
        WalkCase("a generic closure capturing [T]", .foundOrExplained(1)) { marker in
            Holder(genericArrayClosure([marker]))
        },
        WalkCase("a generic closure capturing T and a Marker", .strong(1)) { marker in
            Holder(genericClosure(3, also: marker))
        },
    ]

    static let others: [WalkCase] = [
        WalkCase("an actor (a strong reference to it)", .strong(0)) { marker in
            let actor = MarkerActor(marker: marker)
            return Holder { use(actor) }
        },
        WalkCase("Foundation values beside the marker", .strong(1)) { marker in
            let data = Data(repeating: 7, count: 100)
            let url = URL(fileURLWithPath: "/tmp/retain-path")
            let date = Date()
            let id = UUID()
            let indexes = IndexSet(integersIn: 1...9)
            let decimal = Decimal(string: "1.25") ?? 0
            let value = (data, url, date, id, indexes, decimal, marker)
            return Holder { use(value) }
        },
        WalkCase("a key path", .strong(0)) { _ in
            let path = \Pair.number
            return Holder { use(path) }
        },
    ]
}

extension WalkCases {
    /// A class holding `Optional<any P>` properties (RxSwift's `BinaryDisposable` shape).
    public static func optionalExistentialProperties() -> [String] {
        let marker = Marker()
        let holder = OptionalExistentialHolder(
            first: Pair(marker: marker, number: 1), second: GenericBox(value: marker))
        return withExtendedLifetime((marker, holder)) {
            WalkCase.compare(
                holder: holder, marker: marker, expectation: .strong(2), name: "optional existential properties")
        }
    }

    /// An actor's own stored properties (the default actor's hidden state is not one).
    public static func actorProperties() -> [String] {
        let marker = Marker()
        let actor = MarkerActor(marker: marker)
        return withExtendedLifetime((marker, actor)) {
            WalkCase.compare(holder: actor, marker: marker, expectation: .strong(1), name: "an actor's property")
        }
    }
}
