import Dispatch
import Synchronization
import _ReactiveDiagnosticsSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The serial-delivery check of one stream: which thread is delivering, the hand-over of both
/// threads' evidence when a second one arrives, and the thread-hop probe (``ThreadHopProbe``).
///
/// - The *owner word* holds the kernel id of the delivering thread, so a colliding thread
///   always knows which thread it collided with, even when that thread's stack cannot be had.
/// - On a collision the second thread asks the owner for its side at once (``collided(with:)``,
///   one compare-and-swap), then records its finding (slow). The owner, at the end of its
///   delivery, sees the request and captures its own stack and thread. Whichever of the two
///   arrives second attaches the owner's side to the finding, so the hand-over never depends
///   on which one is faster, and no other thread's stack is ever taken for the owner's.
/// - A delivery on another thread than the previous one keeps its claim for a bounded probe
///   window after its downstream returned, ending at once when a collision is seen.
struct SerialDelivery: ~Copyable {
    /// The delivering thread's kernel id; 0 while nobody delivers.
    private let owner = Atomic<UInt64>(0)
    /// The owner whose side a colliding delivery asked for (0: no request), with
    /// ``answeredBit`` once it answered.
    private let wanted = Atomic<UInt64>(0)
    /// The thread of the last delivery that ended.
    private let lastThread = Atomic<UInt64>(0)
    /// Collisions seen (wrapping): a probe ends when it changes, and no probe starts after one.
    private let collisions = Atomic<UInt32>(0)
    /// First probes this stream may still make.
    private let probesLeft: Atomic<UInt8>
    /// Thread changes since the first probes were spent (for the periodic ones).
    private let hopsSince = Atomic<UInt32>(0)
    /// Microseconds this stream's probes waited.
    private let waitedMicroseconds = Atomic<UInt32>(0)
    /// Where the two sides meet, made at the first collision.
    private let handoff = AtomicLazyReference<PeerHandoff>()

    private static let answeredBit: UInt64 = 1 << 63

    /// The streams' site (``HopProbeBudget/site(stack:label:)``), whose first probes it shares.
    private let site: Int

    init(probes: UInt8, site: Int = 0) {
        probesLeft = Atomic(probes)
        self.site = site
    }

    /// Claims the stream for the calling thread `me`; returns the thread that already held
    /// it (0 when the claim succeeded).
    @inline(__always)
    func claim(_ me: UInt64) -> UInt64 {
        owner.compareExchange(expected: 0, desired: me, ordering: .acquiring).original
    }

    /// A delivery found `other` delivering: counts the collision (which ends probing) and asks
    /// `other` for its side. Returns whether the request was made; then the caller hands its
    /// finding to ``post(finding:owner:recorder:)``. Only one request is in flight per stream.
    func collided(with other: UInt64) -> Bool {
        // The request first: a probing owner stops waiting when the count changes and then
        // looks for a request, which must already be there (the count is published after it).
        let requested = wanted.compareExchange(expected: 0, desired: other, ordering: .acquiringAndReleasing).exchanged
        collisions.wrappingAdd(1, ordering: .releasing)
        return requested
    }

    /// The colliding delivery recorded its finding (`nil`: none was kept): attaches the owner's
    /// side if it is already there, else leaves the finding for the owner to complete. An
    /// owner whose delivery had already ended when the request came never answers it: the
    /// request is then withdrawn (the finding keeps the owner's thread id), so that a later
    /// delivery of that thread is never taken for the colliding one and later collisions can ask.
    func post(finding id: Int?, owner other: UInt64, recorder: any DiagnosticsRecorder) {
        let handoff = peerHandoff()
        if let side = handoff.post(finding: id) {
            if let id {
                recorder.attachRelatedStack(side.stack, thread: side.thread, toFinding: id)
            }
            wanted.store(0, ordering: .releasing)
            return
        }
        // The owner looks for requests before it lets go of the stream: once it has let go,
        // it has either answered (the answered bit is set) or never will.
        if owner.load(ordering: .acquiring) != other,
            wanted.compareExchange(expected: other, desired: 0, ordering: .acquiringAndReleasing).exchanged
        {
            handoff.withdraw(finding: id)
        }
    }

    /// Ends the owner's delivery: probes a thread hop after a value, answers a request for
    /// its side, then lets the next delivery claim the stream.
    @inline(__always)
    func release(afterValue: Bool, recorder: any DiagnosticsRecorder) {
        let me = currentThreadToken()
        if lastThread.load(ordering: .relaxed) != me {
            threadChanged(me, afterValue: afterValue, recorder: recorder)
        }
        if wanted.load(ordering: .relaxed) == me {
            answer(me, recorder: recorder)
        }
        owner.store(0, ordering: .releasing)
    }

    // MARK: Slow paths

    @inline(never)
    private func threadChanged(_ me: UInt64, afterValue: Bool, recorder: any DiagnosticsRecorder) {
        let previous = lastThread.exchange(me, ordering: .relaxed)
        guard afterValue, previous != 0, previous != me else { return }
        let seen = collisions.load(ordering: .relaxed)
        guard seen == 0 else { return }
        guard let probes = recorder.hopProbeBudget else { return }
        // Only the owner gets here: plain loads and stores are enough.
        var left = probesLeft.load(ordering: .relaxed)
        if left > 0, !probes.claimFirstProbe(site: site) {
            // Its site's first probes are spent: from now on this stream probes periodically.
            probesLeft.store(0, ordering: .relaxed)
            left = 0
        }
        let index: Int
        if left > 0 {
            probesLeft.store(left - 1, ordering: .relaxed)
            index = Int(probes.probesPerStream) - Int(left)
        } else {
            let every = probes.thereafterEvery
            guard every > 0 else { return }
            let hops = hopsSince.load(ordering: .relaxed) &+ 1
            hopsSince.store(hops, ordering: .relaxed)
            guard hops % every == 0 else { return }
            index = .max  // the longest window
        }
        let waitedSoFar = waitedMicroseconds.load(ordering: .relaxed)
        let streamLeft = Int64(probes.budgetPerStreamMicroseconds) - Int64(waitedSoFar)
        guard streamLeft > 0, let window = probes.take(probe: max(0, index), atMost: streamLeft * 1_000) else { return }
        let start = DispatchTime.now().uptimeNanoseconds
        var waited: Int64 = 0
        while collisions.load(ordering: .acquiring) == seen, waited < window {
            sched_yield()
            waited = Int64(truncatingIfNeeded: DispatchTime.now().uptimeNanoseconds &- start)
        }
        probes.finish(window: window, spent: waited)
        let spentMicroseconds = UInt32(clamping: min(waited, window) / 1_000)
        waitedMicroseconds.store(waitedSoFar &+ spentMicroseconds, ordering: .relaxed)
    }

    /// The owner's side, given once per request.
    @inline(never)
    private func answer(_ me: UInt64, recorder: any DiagnosticsRecorder) {
        guard
            wanted.compareExchange(
                expected: me, desired: me | Self.answeredBit, ordering: .acquiringAndReleasing
            ).exchanged
        else { return }
        let side = PeerHandoff.Side(stack: recorder.captureEventStack(), thread: .current)
        if let finding = peerHandoff().park(side) {
            if let id = finding {
                recorder.attachRelatedStack(side.stack, thread: side.thread, toFinding: id)
            }
            wanted.store(0, ordering: .releasing)
        }
    }

    private func peerHandoff() -> PeerHandoff {
        handoff.load() ?? handoff.storeIfNil(PeerHandoff())
    }
}

/// Where the two sides of a concurrent delivery meet: the colliding thread's finding and the
/// owner's stack and thread, whichever comes first waiting for the other.
final class PeerHandoff: Sendable {
    /// The owner's side.
    struct Side: Sendable {
        var stack: StackID
        var thread: ThreadInfo
    }

    private enum State {
        case empty
        case finding(Int?)
        case side(Side)
    }

    private let state = LockedValue(State.empty)

    /// The colliding thread's finding arrives: returns the owner's side when it came first
    /// (the hand-over is then complete), else keeps the finding.
    func post(finding id: Int?) -> Side? {
        state.withLock { state in
            if case .side(let side) = state {
                state = .empty
                return side
            }
            state = .finding(id)
            return nil
        }
    }

    /// The colliding thread takes back its finding (the owner will not answer): forgets it,
    /// unless another collision's finding has taken its place since.
    func withdraw(finding id: Int?) {
        state.withLock { state in
            if case .finding(let kept) = state, kept == id {
                state = .empty
            }
        }
    }

    /// The owner's side arrives: returns the finding when it came first (`.some(nil)`: no
    /// finding was kept; the hand-over is complete either way), else keeps the side.
    func park(_ side: Side) -> Int?? {
        state.withLock { state in
            if case .finding(let id) = state {
                state = .empty
                return .some(id)
            }
            state = .side(side)
            return nil
        }
    }
}
