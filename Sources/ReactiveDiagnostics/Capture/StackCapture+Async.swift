import CReactiveDiagnostics
import ReactiveDiagnosticsSymbolication
import _ReactiveDiagnosticsSupport

extension StackCapture {
    /// Captures the calling task's stack of `async` callers and interns it.
    ///
    /// In `async` code the thread's stack ends at the executor: each `await` returns to it, and
    /// every caller that awaits lives in a heap *async context* instead. This walks that chain
    /// (each context names its caller's context and the function that resumes it), so the
    /// stack shows the functions that are awaiting, up to the task's closure:
    ///
    /// ```swift
    /// func start() {
    ///     Task { for await price in prices { show(price) } }   // ← shown: closure #1 in start()
    /// }
    /// ```
    ///
    /// Each frame is a *resume point* (where its function continues after the `await`). When
    /// the chain cannot be read (an unsupported platform, or a register that does not hold a
    /// context) the thread's stack is captured instead, as ``capture(depth:into:)`` does.
    ///
    /// It runs on the caller's actor (`isolation`), so calling it adds no suspension point.
    ///
    /// - Complexity: a few nanoseconds a frame, plus one symbol lookup the first time a call
    ///   site of the library is seen (to check that the register holds a context).
    @inline(never)
    package static func captureAsync(
        depth: Int, into interner: StackInterner, isolation: isolated (any Actor)? = #isolation
    ) async -> StackID {
        // First, and directly in this function's body: where its context is kept.
        let registers = rdiag_async_registers()
        return captureChain(from: registers, depth: depth, into: interner)
    }

    static func captureChain(from registers: rdiag_async_registers, depth: Int, into interner: StackInterner) -> StackID
    {
        let depth = min(max(depth, 0), maximumDepth)
        guard depth > 0 else { return .none }
        let context: UInt
        if AsyncContexts.isContext(UInt(registers.context)) {
            context = UInt(registers.context)
        } else if case let spilled = UInt(rdiag_async_spilled_context(registers.frame)),
            AsyncContexts.isContext(spilled)
        {
            context = spilled
        } else {
            return capture(depth: depth, into: interner)
        }
        var frames: UnsafePointer<UInt>?
        var count = 0
        var hash: UInt64 = 0
        let cached = rdiag_async_chain_cached(interner.owner, context, Int32(depth), &frames, &count, &hash)
        return interner.interned(cached: cached, frames: frames, count: count, hash: hash)
    }
}

/// Checks that a candidate is an async context before its chain is followed: readable
/// memory whose second word points into a Swift resume function (`…TQ<n>_` / `…TY<n>_`, the
/// suffixes of async resume partial functions; resume functions are local symbols that some
/// lookups attribute to the partial function before them, so the offset is not checked). The
/// verdict is cached per address. The chain walk itself checks that each context it reads is
/// mapped memory.
enum AsyncContexts {
    private static let verdicts = LockedValue([UInt: Bool]())

    static func isContext(_ context: UInt) -> Bool {
        guard rdiag_async_context_is_readable(context) != 0,
            let words = UnsafePointer<UInt>(bitPattern: context)
        else { return false }
        let resume = words[1]
        guard resume != 0 else { return false }
        if let cached = verdicts.withLock({ $0[resume] }) {
            return cached
        }
        let verdict = isResumeFunction(resume)
        verdicts.withLock { verdicts in
            // A few call sites of the library in practice; a bound in case a register ever holds
            // something else that happens to be readable.
            if verdicts.count < 4_096 {
                verdicts[resume] = verdict
            }
        }
        return verdict
    }

    private static func isResumeFunction(_ address: UInt) -> Bool {
        let name: String? = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 1024) { buffer in
            var offset: UInt = 0
            guard rdiag_proc_name(address, buffer.baseAddress!, buffer.count, &offset) == 0 else {
                return nil
            }
            return String(cString: buffer.baseAddress!)
        }
        guard let name else { return false }
        return isResumeSymbol(name)
    }

    /// `…TQ0_`, `…TY12_`: the mangling of an async function's resume partial functions.
    static func isResumeSymbol(_ name: String) -> Bool {
        ResumeSymbol.function(of: name) != nil
    }
}
