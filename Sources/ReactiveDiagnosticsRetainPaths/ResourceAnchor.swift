/// Where the engine starts looking for why a leaked resource is still alive (see
/// ``ResourceLedger/setAnchor(_:object:)``). Only addresses: nothing is retained, and the walk
/// reads them without trusting them.
///
/// ```swift
/// if case .object(let address)? = engine.ledger.anchor(of: token) {
///     print("the walk starts at 0x" + String(address, radix: 16))
/// }
/// ```
package enum ResourceAnchor: Sendable, Hashable {
    /// The object that explains the resource's lifetime (a subscriber, a diagnosed stage).
    case object(UInt)
    /// The object that holds this one explains it (found at the checkpoint by scanning
    /// memory for references to it): for an adapter that only sees something the subscriber
    /// captures, such as the call-stack array RxSwift's hooks hand out.
    case holderOf(UInt)
}
