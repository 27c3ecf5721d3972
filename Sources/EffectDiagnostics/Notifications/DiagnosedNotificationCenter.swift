public import Foundation
import ReactiveDiagnostics

/// A `NotificationCenter` whose block-based observers are tracked until they are removed.
///
/// `addObserver(forName:object:queue:using:)` returns a token that must be removed: the
/// center keeps the block, and everything it captures, until then. Dropping the token does
/// not remove the observer (swift-corelibs-foundation's token has no `deinit`, and Darwin's
/// center retains it), so a manager object that forgets, or that is itself never released,
/// leaks the block and keeps reacting to notifications. Through this wrapper each observer
/// is a live `observer` resource, labelled with the notification name and carrying the stack
/// of the code that added it, until it is removed. Reported:
/// - `observerNotRemoved`: still registered at the end of the test, one finding per
///   notification name and call site with the number of observers (`details["count"]`);
/// - `wrongThread`: a notification delivered where `expecting` rules out.
///
/// The tokens are Foundation's own, so `center.removeObserver(token)` on the plain center
/// ends the resource too.
///
/// ```swift
/// final class SessionWatcher {
///     private let center = NotificationCenter.default.diagnosed()
///     private var token: (any NSObjectProtocol)?
///
///     func start(onExpiry: @escaping @Sendable () -> Void) {
///         token = center.addObserver(forName: .sessionExpired, queue: .main, expecting: .mainQueue) { _ in
///             onExpiry()
///         }
///     }
///
///     func stop() {
///         if let token { center.removeObserver(token) }
///         token = nil
///     }
/// }
/// ```
public struct DiagnosedNotificationCenter: Sendable {
    /// The center observers are added to.
    public let center: NotificationCenter
    /// The engine findings go to.
    public let engine: DiagnosticsEngine

    /// Wraps `center`.
    public init(_ center: NotificationCenter = .default, engine: DiagnosticsEngine = .shared) {
        self.center = center
        self.engine = engine
    }

    /// Adds a tracked observer: Foundation's `addObserver(forName:object:queue:using:)`, plus
    /// a live resource with the caller's stack until the observer is removed.
    ///
    /// - Parameters:
    ///   - name: The notification to observe; `nil` for every notification.
    ///   - object: Only notifications posted by this object; `nil` for any sender.
    ///   - queue: Where `block` runs; `nil` for the posting thread. On Linux, posting from
    ///     main-queue work that is not on the main thread (Swift Testing) to an observer
    ///     with `queue: .main` blocks forever in Foundation: post from elsewhere.
    ///   - expecting: Where notifications must be delivered; `nil` for anywhere.
    ///   - block: Called with each notification.
    /// - Returns: Foundation's token; remove it with ``removeObserver(_:)`` (or the plain center).
    public func addObserver(
        forName name: Notification.Name?, object: Any? = nil, queue: OperationQueue? = nil,
        expecting: ThreadExpectation? = nil, using block: @escaping @Sendable (Notification) -> Void
    ) -> any NSObjectProtocol {
        guard engine.isEnabled else {
            return center.addObserver(forName: name, object: object, queue: queue, using: block)
        }
        let registration = ObserverRegistration(
            resource: .start(.observer, label: DiagnosticLabel(Self.label(for: name)), engine: engine),
            expectation: expecting, block: block)
        let observer = center.addObserver(forName: name, object: object, queue: queue) { notification in
            registration.deliver(notification)
        }
        registration.registered(as: observer)
        return observer
    }

    /// Removes an observer added through any wrapper of this center, ending its resource.
    ///
    /// Removing a token twice, or one the wrapper did not hand out, only forwards to the center.
    public func removeObserver(_ observer: Any) {
        let resource = ObserverRegistry.shared.take(observer as AnyObject)
        center.removeObserver(observer)
        resource?.end()
    }

    /// Posts a notification to the wrapped center.
    public func post(name: Notification.Name, object: Any? = nil, userInfo: [AnyHashable: Any]? = nil) {
        center.post(name: name, object: object, userInfo: userInfo)
    }

    /// The label of observers of `name`: the notification name, or `*` for every notification.
    static func label(for name: Notification.Name?) -> String {
        name?.rawValue ?? "*"
    }
}

extension NotificationCenter {
    /// This center with tracked observers.
    ///
    /// ```swift
    /// let token = NotificationCenter.default.diagnosed()
    ///     .addObserver(forName: .NSSystemClockDidChange) { _ in clock.reset() }
    /// ```
    public func diagnosed(engine: DiagnosticsEngine = .shared) -> DiagnosedNotificationCenter {
        DiagnosedNotificationCenter(self, engine: engine)
    }
}
