import Foundation
import ReactiveDiagnostics

// A subclass can stand in for `NotificationCenter` only where its methods can be overridden:
// Apple platforms (NSNotificationCenter), and Linux toolchains before Swift 6.3, whose
// swift-corelibs-foundation declared them `open`. From Swift 6.3 on, Linux's NotificationCenter
// is swift-foundation's, whose `addObserver`, `removeObserver` and `post` are not `open`: code
// holding a `NotificationCenter` reference always runs the base methods, so no subclass could
// see its observers. There, `asNotificationCenter` does not exist (Docs/EffectsAndNotifications.md).
#if canImport(Darwin) || !compiler(>=6.3)

extension DiagnosedNotificationCenter {
    /// This wrapper as a `NotificationCenter`, for app code that takes one: every observer the
    /// code adds through it is tracked (an `observer` resource with the adding stack, until
    /// removed) and added to the wrapped center, where posts reach it as before.
    ///
    /// ```swift
    /// final class SessionWatcher {
    ///     init(center: NotificationCenter) { … center.addObserver(forName: .sessionExpired, …) … }
    /// }
    ///
    /// let watcher = SessionWatcher(center: NotificationCenter.default.diagnosed().asNotificationCenter)
    /// ```
    ///
    /// Available on Apple platforms and on Linux toolchains before Swift 6.3 (see the guide).
    public var asNotificationCenter: NotificationCenter {
        SubstituteNotificationCenter(self)
    }
}

/// A `NotificationCenter` that forwards to a ``DiagnosedNotificationCenter``: adds are tracked,
/// removes end the tracking, posts go to the wrapped center. Unchecked: its one stored
/// property is an immutable `Sendable` value.
final class SubstituteNotificationCenter: NotificationCenter, @unchecked Sendable {
    private let diagnosed: DiagnosedNotificationCenter

    init(_ diagnosed: DiagnosedNotificationCenter) {
        self.diagnosed = diagnosed
        super.init()
    }

    #if !canImport(Darwin)
    /// swift-corelibs-foundation's `init()` is `required`: a substitute for the default center.
    required init() {
        diagnosed = DiagnosedNotificationCenter()
        super.init()
    }
    #endif

    override func addObserver(
        forName name: NSNotification.Name?, object obj: Any?, queue: OperationQueue?,
        using block: @escaping @Sendable (Notification) -> Void
    ) -> any NSObjectProtocol {
        diagnosed.addObserver(forName: name, object: obj, queue: queue, expecting: nil, using: block)
    }

    override func removeObserver(_ observer: Any) {
        diagnosed.removeObserver(observer)
    }

    override func removeObserver(_ observer: Any, name aName: NSNotification.Name?, object anObject: Any?) {
        // Only removes what matches; the observer's resource ends when the center lets go of
        // its block (the registration's deinit).
        diagnosed.center.removeObserver(observer, name: aName, object: anObject)
    }

    override func post(_ notification: Notification) {
        diagnosed.center.post(notification)
    }

    override func post(
        name aName: NSNotification.Name, object anObject: Any?, userInfo aUserInfo: [AnyHashable: Any]? = nil
    ) {
        diagnosed.center.post(name: aName, object: anObject, userInfo: aUserInfo)
    }

    #if canImport(Darwin)
    override func post(name aName: NSNotification.Name, object anObject: Any?) {
        diagnosed.center.post(name: aName, object: anObject)
    }

    override func addObserver(
        _ observer: Any, selector aSelector: Selector, name aName: NSNotification.Name?, object anObject: Any?
    ) {
        // Selector observers are held weakly by the center: nothing to leak, nothing tracked.
        diagnosed.center.addObserver(observer, selector: aSelector, name: aName, object: anObject)
    }
    #endif
}

#endif
