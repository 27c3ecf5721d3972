import Foundation

struct Pair: Describing {
    let marker: Marker
    let number: Int
}

struct Nested {
    let first: Pair
    let second: Pair
    let label: String
}

struct Large: Describing {
    let marker: Marker
    let a = 1, b = 2, c = 3, d = 4
}

struct WeakHolder {
    weak var marker: Marker?
}

struct Callback {
    let run: (() -> Void)?
}

enum Single {
    case object(Marker)
    case none
}

enum Several {
    case first(Marker)
    case second(Marker)
    case number(Int)
    case nothing
}

indirect enum Chain {
    case link(Marker, Chain)
    case end
}

enum Wrapped {
    case any(any Describing)
    case nothing
}

protocol Describing {}

protocol ClassBound: AnyObject {}

final class MarkerBox: ClassBound {
    let marker: Marker

    init(marker: Marker) {
        self.marker = marker
    }
}

struct MarkerError: Error {
    let marker: Marker
}

actor MarkerActor {
    let marker: Marker

    init(marker: Marker) {
        self.marker = marker
    }
}

@inline(never)
func genericClosure<T>(_ value: T) -> () -> Void {
    { use(value) }
}

@inline(never)
func genericArrayClosure<T>(_ values: [T]) -> () -> Void {
    { use(values) }
}

@inline(never)
func genericClosure<T>(_ value: T, also marker: Marker) -> () -> Void {
    {
        use(value); use(marker)
    }
}

class DisposeLikeBase {
    init() {}
}

final class OptionalExistentialHolder: DisposeLikeBase {
    private let flag = 0
    private var first: (any Describing)?
    private var second: (any Describing)?

    init(first: (any Describing)?, second: (any Describing)?) {
        self.first = first
        self.second = second
    }
}

struct GenericBox<T>: Describing {
    let value: T
}
