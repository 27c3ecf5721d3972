// swift-format-ignore-file
// (FixShapesFixed.swift is as the fixer writes it; the formatter must not change either.)
import CombineDiagnostics
import OpenCombineShim

// The shapes `reactive-diag fix` is tried on (FixedShapeTests): FixShapes.swift as written, with
// a retain cycle each; FixShapesFixed.swift as the fixer leaves it (generated: never edit it).

/// A trailing closure whose body is one assignment to `self`.
final class FixedTrailingShape {
    private(set) var last = 0
    private var cancellables = Set<AnyCancellable>()

    init(feed: ShapeFeed) {
        feed.values
            .sink { [weak self] value in
                self?.last = value
            }
            .store(in: &cancellables)
    }
}

/// Labelled closures, both capturing `self`: the cycle stays until both are weak.
final class FixedLabelledShape {
    private(set) var last = 0
    private(set) var finished = false
    private var cancellables = Set<AnyCancellable>()

    init(feed: ShapeFeed) {
        feed.values
            .sink(
                receiveCompletion: { [weak self] _ in self?.finished = true },
                receiveValue: { [weak self] value in self?.last = value }
            )
            .store(in: &cancellables)
    }
}

/// A body of several statements.
final class FixedMultiStatementShape {
    private(set) var values: [Int] = []
    private(set) var total = 0
    private var cancellables = Set<AnyCancellable>()

    init(feed: ShapeFeed) {
        feed.values
            .sink { [weak self] value in guard let self else { return }
                self.values.append(value)
                self.total += value
            }
            .store(in: &cancellables)
    }
}

/// A capture list that already names something else.
final class FixedCaptureListShape {
    private(set) var last = 0
    private let log = ShapeLog()
    private var cancellables = Set<AnyCancellable>()

    init(feed: ShapeFeed) {
        feed.values
            .sink { [log, weak self] value in guard let self else { return }
                log.record(value)
                self.last = value
            }
            .store(in: &cancellables)
    }
}

/// `assign(to:on: self)` on a property that is not `@Published`.
final class FixedAssignShape {
    var title = ""
    private var cancellables = Set<AnyCancellable>()

    init(feed: ShapeFeed) {
        feed.values
            .map { "\($0)" }
            .sink { [weak self] in self?.title = $0 }
            .store(in: &cancellables)
    }
}
