import _ReactiveDiagnosticsSupport
import OpenCombineShim

/// What global instrumentation needs to know about a subscriber type, computed once per type
/// (dynamic casts cost more than a cached lookup).
struct SubscriberTypeInfo: Sendable {
    /// `AnySubscriber`, the wrapper OpenCombine hands to the hook when a publisher such as
    /// `AnyPublisher` or `Deferred` forwards an already tapped subscriber to another one.
    let isAnySubscriber: Bool
    /// The subscriber a `.diagnosed()` stage subscribes upstream with.
    let isDiagnosed: Bool
    /// A class, whose instances can be referenced weakly.
    let isClass: Bool
    /// A subscriber of the framework's own (an operator's inner subscriber, `Sink`,
    /// `SubjectSubscriber`), not one of the user's (`AnySubscriber` wraps the user's).
    let isFrameworkType: Bool
    /// For an operator's own subscriber (`Publishers.FlatMap<…>.Outer`), the operator's name
    /// (`FlatMap`) interned; ``OperatorNames/none`` for every other subscriber (`Sink`, `Assign`,
    /// the user's). What an operator subscribes while a value or completion is delivered to it
    /// (a `flatMap`'s inner publishers) is alive because its chain is.
    let operatorID: OperatorNames.ID

    init<S: Subscriber>(_ type: S.Type) {
        isAnySubscriber = type is any AnySubscriberMarker.Type
        isDiagnosed = type is any DiagnosedSubscriberMarker.Type
        isClass = type is AnyObject.Type
        let name = String(reflecting: type)
        isFrameworkType = !isAnySubscriber && (name.hasPrefix("OpenCombine.") || name.hasPrefix("Combine."))
        operatorID = OperatorNames.id(isFrameworkType ? Self.operatorName(reflecting: name) : nil)
    }

    /// `OpenCombine.Publishers.FlatMap<…>.Outer<…>` → `FlatMap`; `nil` outside `Publishers`.
    static func operatorName(reflecting name: String) -> String? {
        for prefix in ["OpenCombine.Publishers.", "Combine.Publishers."] where name.hasPrefix(prefix) {
            let rest = name.dropFirst(prefix.count)
            let end = rest.firstIndex { $0 == "<" || $0 == "." } ?? rest.endIndex
            return rest[..<end].isEmpty ? nil : String(rest[..<end])
        }
        return nil
    }
}

/// Marks `AnySubscriber` (see ``SubscriberTypeInfo/isAnySubscriber``).
protocol AnySubscriberMarker {}

extension AnySubscriber: AnySubscriberMarker {}

/// The names of the operators whose own subscribers the hook has seen, interned once per type:
/// a delivery frame carries a 32-bit id, not a string (nothing to retain per event).
enum OperatorNames {
    typealias ID = UInt32
    /// Not an operator's subscriber.
    static let none: ID = 0
    private static let names = LockedValue<[String]>([])

    /// The id of `name` (``none`` for `nil`).
    static func id(_ name: String?) -> ID {
        guard let name else { return none }
        return names.withLock { names in
            if let index = names.firstIndex(of: name) { return ID(index + 1) }
            names.append(name)
            return ID(names.count)
        }
    }

    /// The name of `id`.
    static func name(_ id: ID) -> String {
        id == none ? "" : names.withLock { $0[Int(id) - 1] }
    }
}
