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

    init<S: Subscriber>(_ type: S.Type) {
        isAnySubscriber = type is any AnySubscriberMarker.Type
        isDiagnosed = type is any DiagnosedSubscriberMarker.Type
        isClass = type is AnyObject.Type
        let name = String(reflecting: type)
        isFrameworkType = !isAnySubscriber && (name.hasPrefix("OpenCombine.") || name.hasPrefix("Combine."))
    }
}

/// Marks `AnySubscriber` (see ``SubscriberTypeInfo/isAnySubscriber``).
protocol AnySubscriberMarker {}

extension AnySubscriber: AnySubscriberMarker {}
