import OpenCombineShim

/// A weak reference used only to tell whether an object is still alive (and which one).
struct WeakObject: @unchecked Sendable {
    // Unchecked: the object is only compared with nil and by identity, never used.
    weak var object: AnyObject?
    let isTracked: Bool

    init(_ object: AnyObject?) {
        self.object = object
        isTracked = object != nil
    }

    /// Whether a tracked object has been deallocated.
    var isGone: Bool {
        isTracked && object == nil
    }
}

extension WeakObject {
    /// A weak reference to `value` when `isClass` says its type is a class.
    static func of<T>(_ value: T, isClass: Bool) -> WeakObject {
        // A value of a class type is one strong reference: reinterpreting it is exact and
        // avoids a dynamic cast per subscription.
        WeakObject(isClass ? unsafeBitCast(value, to: AnyObject.self) : nil)
    }

    /// A weak reference to the object behind `subscription` when `isClass` says its dynamic
    /// type is a class.
    static func of(subscription: any Subscription, isClass: Bool) -> WeakObject {
        guard isClass else { return WeakObject(nil) }
        func object<T: Subscription>(_ subscription: T) -> AnyObject {
            unsafeBitCast(subscription, to: AnyObject.self)
        }
        return WeakObject(object(subscription))
    }
}
