import Foundation
import ReactiveDiagnostics
import Synchronization

/// One observer block registered through ``DiagnosedNotificationCenter``.
///
/// The center holds the block that captures this object, and nothing else does, so this
/// object lives exactly as long as the registration: its deinit ends the `observer`
/// resource however the observer was removed (through the wrapper, through the plain
/// center, or because the center itself was deallocated). Dropping the token does not
/// remove an observer on any platform, so it does not end the resource either.
final class ObserverRegistration: Sendable {
    let resource: TrackedResource
    let expectation: ThreadExpectation?
    private let block: @Sendable (Notification) -> Void
    /// The identity of the center's token, once known (0 before).
    private let observerID = Atomic<UInt>(0)

    init(resource: TrackedResource, expectation: ThreadExpectation?, block: @escaping @Sendable (Notification) -> Void)
    {
        self.resource = resource
        self.expectation = expectation
        self.block = block
    }

    deinit {
        ObserverRegistry.shared.remove(observerID.load(ordering: .acquiring), resource: resource.token)
        resource.end()
    }

    /// Remembers the center's token so that removing it through the wrapper ends the resource at once.
    func registered(as observer: AnyObject) {
        let id = UInt(bitPattern: ObjectIdentifier(observer))
        observerID.store(id, ordering: .releasing)
        ObserverRegistry.shared.insert(id, observer: observer, resource: resource)
    }

    /// A notification arrived: checks the thread, then calls the user's block with the
    /// observer's test as the calling thread's test.
    func deliver(_ notification: Notification) {
        if let expectation, !expectation.isSatisfied() {
            resource.report(
                .wrongThread,
                "notification '\(notification.name.rawValue)' was delivered on the wrong thread: its observer expects \(expectation.phrase), was \(ThreadInfo.current)",
                details: ["expected": expectation.description, "notification": notification.name.rawValue])
        }
        TestIdentity.withThreadTest(resource.test) { block(notification) }
    }
}
