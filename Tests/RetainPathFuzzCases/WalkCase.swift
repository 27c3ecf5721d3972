import ReactiveDiagnostics
import ReactiveDiagnosticsRetainPaths

/// One kind of captured value, and what the walker must say about it.
public struct WalkCase: Sendable {
    /// What the walker must find.
    public enum Expectation: Sendable, Equatable {
        /// Exactly this many strong references to the marker.
        case strong(Int)
        /// A reference to the marker that does not keep it alive (weak, unowned), none strong.
        case notStrong
        /// A value the walker may not be able to read (a generic capture, depending on how the
        /// build specialized it): it must find these strong references, or fewer and say what
        /// it could not read.
        case foundOrExplained(Int)
    }

    public var name: String
    public var expectation: Expectation
    let make: @Sendable (Marker) -> Holder

    public init(_ name: String, _ expectation: Expectation, make: @escaping @Sendable (Marker) -> Holder) {
        self.name = name
        self.expectation = expectation
        self.make = make
    }

    /// Builds the case, walks it, and returns what went wrong (nothing when all is well).
    public func check() -> [String] {
        let marker = Marker()
        let holder = make(marker)
        let failures = withExtendedLifetime((marker, holder)) {
            WalkCase.compare(holder: holder, marker: marker, expectation: expectation, name: name)
        }
        if let release = holder.cycleRelease {
            release.isRaised = true
            holder.closure()
        }
        return failures
    }

    /// Compares what the walker found in `holder` with `expectation`.
    public static func compare(holder: AnyObject, marker: Marker, expectation: Expectation, name: String) -> [String] {
        let (references, notes) = RetainPathInspection.inspect(holder)
        let target = RetainPathInspection.address(of: marker)
        let strong = references.filter { $0.target == target && $0.strength == "strong" }
        let described = references.map { "\($0.strength) \($0.path)" }
        switch expectation {
        case .strong(let count):
            guard strong.count == count else {
                return [
                    "\(name): expected \(count) strong reference(s) to the marker, found \(strong.count): \(described) \(notes)"
                ]
            }
        case .notStrong:
            let weak = references.filter {
                $0.strength == "weak" || $0.strength == "unowned" || $0.strength == "notStrong"
            }
            guard strong.isEmpty, !weak.isEmpty else {
                return ["\(name): expected a weak or unowned reference and no strong one: \(described) \(notes)"]
            }
        case .foundOrExplained(let count):
            guard strong.count == count || (strong.count < count && !notes.isEmpty) else {
                return ["\(name): expected \(count) strong reference(s), or fewer and a note: \(described) \(notes)"]
            }
        }
        return []
    }
}
