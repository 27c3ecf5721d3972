import ReactiveDiagnostics
import Synchronization

/// Who waits for an element of a single-consumer sequence now: how many consumers, and the
/// stack of the one that began the wait, in one atomic word, so that a second consumer
/// arriving at the same moment as the first always learns the first one's stack (a count and
/// a stack kept apart can be read between the two writes).
///
/// ```swift
/// let waiting = WaitingConsumers()
/// assert(waiting.enter(stack: first) == nil)    // alone
/// assert(waiting.enter(stack: second) == first) // two at once: a concurrentIteration
/// waiting.leave(); waiting.leave()
/// ```
struct WaitingConsumers: ~Copyable {
    /// The count (low 32 bits) and the first waiter's stack (high 32 bits).
    private let word = Atomic<UInt64>(0)

    /// A consumer starts waiting with `stack`. Returns the stack of the consumer that was
    /// waiting already, or `nil` when none was.
    func enter(stack: StackID) -> StackID? {
        var current = word.load(ordering: .relaxed)
        while true {
            let count = current & 0xffff_ffff
            let desired = count == 0 ? UInt64(stack.rawValue) << 32 | 1 : current &+ 1
            let (exchanged, original) = word.weakCompareExchange(
                expected: current, desired: desired, ordering: .relaxed)
            if exchanged {
                return count == 0 ? nil : StackID(rawValue: UInt32(truncatingIfNeeded: current >> 32))
            }
            current = original
        }
    }

    /// A consumer stopped waiting.
    func leave() {
        word.wrappingSubtract(1, ordering: .relaxed)
    }
}
