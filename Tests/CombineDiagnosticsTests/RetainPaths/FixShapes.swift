// swift-format-ignore-file
// (FixShapesFixed.swift is as the fixer writes it; the formatter must not change either.)
import CombineDiagnostics
import OpenCombineShim

// The shapes `reactive-diag fix` is tried on (FixedShapeTests): FixShapes.swift as written, with
// a retain cycle each; FixShapesFixed.swift as the fixer leaves it (generated: never edit it).

/// A trailing closure whose body is one assignment to `self`.
final class LeakyTrailingShape {
    private(set) var last = 0
    private var cancellables = Set<AnyCancellable>()

    init(feed: ShapeFeed) {
        feed.values
            .sink { value in
                self.last = value
            }
            .store(in: &cancellables)
    }
}

/// Labelled closures, both capturing `self`: the cycle stays until both are weak.
final class LeakyLabelledShape {
    private(set) var last = 0
    private(set) var finished = false
    private var cancellables = Set<AnyCancellable>()

    init(feed: ShapeFeed) {
        feed.values
            .sink(
                receiveCompletion: { _ in self.finished = true },
                receiveValue: { value in self.last = value }
            )
            .store(in: &cancellables)
    }
}

/// A body of several statements.
final class LeakyMultiStatementShape {
    private(set) var values: [Int] = []
    private(set) var total = 0
    private var cancellables = Set<AnyCancellable>()

    init(feed: ShapeFeed) {
        feed.values
            .sink { value in
                self.values.append(value)
                self.total += value
            }
            .store(in: &cancellables)
    }
}

/// A capture list that already names something else.
final class LeakyCaptureListShape {
    private(set) var last = 0
    private let log = ShapeLog()
    private var cancellables = Set<AnyCancellable>()

    init(feed: ShapeFeed) {
        feed.values
            .sink { [log] value in
                log.record(value)
                self.last = value
            }
            .store(in: &cancellables)
    }
}

/// `assign(to:on: self)` on a property that is not `@Published`.
final class LeakyAssignShape {
    var title = ""
    private var cancellables = Set<AnyCancellable>()

    init(feed: ShapeFeed) {
        feed.values
            .map { "\($0)" }
            .assign(to: \.title, on: self)
            .store(in: &cancellables)
    }
}
