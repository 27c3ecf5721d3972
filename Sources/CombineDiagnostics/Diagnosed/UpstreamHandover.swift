public import OpenCombineShim
import ReactiveDiagnostics
public import Synchronization

#if canImport(Glibc)
public import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A grammar checker that is also the upstream's subscriber: the upstream subscription it
/// holds, handed over under a short lock. The base of the `.diagnosed()` stage's subscriber
/// (``OpenCombine/Publishers/Diagnosed``'s `Inner`) and of the stage fused with its sink
/// (`SinkInner`). Not generic, so its layout needs no metadata of its own per stream type.
///
/// The lock is a spin lock stored inline (no allocation per subscription), held for a few
/// instructions and never while calling upstream or downstream.
@usableFromInline
class UpstreamHandover: StreamMonitor, @unchecked Sendable {
    // Unchecked: `upstream` and `upstreamState` are only touched under `lockWord`.
    @usableFromInline let lockWord = Atomic<Bool>(false)
    // Guarded by `lockWord` (so no dynamic exclusivity check: two runtime calls per access):
    // the upstream subscription while it is live, and whether it arrived and ended.
    @usableFromInline @exclusivity(unchecked) var upstream: (any Subscription)?
    @usableFromInline @exclusivity(unchecked) var upstreamState = DiagnosedUpstream.awaiting

    /// Registers the subscription with `engine` (checked as a Combine stream, see
    /// ``ReactiveDiagnostics/StreamMonitor/Options/combine``); its allocation stack is the
    /// caller's, captured now.
    @usableFromInline
    init(engine: DiagnosticsEngine, label: DiagnosticLabel, contract: StreamContract?, anchor: AnyObject?) {
        super.init(recorder: engine, label: label, contract: contract, options: .combine, anchor: anchor)
    }

    /// Checks the terminal event `completion` (see ``ReactiveDiagnostics/StreamMonitor/willTerminate(failure:)``).
    @inlinable
    final func willTerminate<Failure: Error>(_ completion: Subscribers.Completion<Failure>) -> Delivery {
        switch completion {
        case .finished: willTerminate(failure: nil)
        case .failure(let error): willTerminate(failure: String(describing: error))
        }
    }

    /// Keeps `subscription` if it is the first; `false` when one came already, or the stream
    /// ended (the caller must cancel it then, as Reactive Streams 2.5 asks).
    @inlinable
    final func acceptUpstream(_ subscription: any Subscription) -> Bool {
        withUpstreamLock { () -> Bool in
            guard upstreamState == .awaiting else { return false }
            upstream = subscription
            upstreamState = .subscribed
            return true
        }
    }

    /// The upstream subscription while it is live.
    @inlinable
    final var liveUpstream: (any Subscription)? {
        withUpstreamLock { upstream }
    }

    /// Marks the upstream finished and returns the subscription to release or cancel.
    @inlinable
    final func takeUpstream() -> (any Subscription)? {
        var taken: (any Subscription)?
        withUpstreamLock {
            swap(&taken, &upstream)
            upstreamState = .terminal
        }
        return taken
    }

    @inlinable
    final func withUpstreamLock<Result>(_ body: () -> Result) -> Result {
        lockUpstream()
        defer { unlockUpstream() }
        return body()
    }

    /// Takes the lock. Where a subclass reads a field whose type depends on its generic
    /// parameters, it locks and unlocks around the read itself: through the generic
    /// ``withUpstreamLock(_:)``, unspecialized code would look up that type's metadata on
    /// every call.
    @inlinable
    final func lockUpstream() {
        while !lockWord.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
            sched_yield()
        }
    }

    /// Releases the lock.
    @inlinable
    final func unlockUpstream() {
        lockWord.store(false, ordering: .releasing)
    }
}

/// Where the upstream subscription of a diagnosed stage is in its life. Not nested in the
/// generic stage: a generic type's nested types need their metadata looked up at run time.
@usableFromInline
enum DiagnosedUpstream: UInt8 {
    case awaiting
    case subscribed
    case terminal
}
