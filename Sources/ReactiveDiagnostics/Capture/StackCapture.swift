import CReactiveDiagnostics

/// Raw backtrace capture: return addresses only; nothing is symbolized here.
///
/// A stack is walked along its frame pointers (two loads a frame) through every return address
/// libunwind has confirmed keeps one: the first time a return address is met, libunwind walks
/// that stack with its register state and records, process-wide, whether the caller's frame
/// record is where the frame pointer says. A stack with an address that does not keep one (most
/// of the C library, signal frames) or that ends the stack is walked by libunwind
/// (`unw_backtrace`). Both give the same addresses, so interning never sees which one ran.
/// ``Configuration/capturesAlongFramePointers`` turns the frame-pointer path off. The costs
/// are in `Docs/Performance.md`.
///
/// ```swift
/// let id = StackCapture.capture(depth: 32, into: DiagnosticsEngine.shared.stacks)
/// ```
@_spi(Integration) public enum StackCapture {
    /// The default number of frames captured.
    package static let defaultDepth = 64

    /// The largest depth accepted.
    package static let maximumDepth = 512

    /// Captures the calling thread's stack and interns it.
    ///
    /// The library's own leading frames stay in the raw stack; they are dropped by symbol
    /// when the stack is symbolized (see ``SymbolizedStack``), so the first frame shown is
    /// always the caller's.
    @inline(never)
    @_spi(Integration) public static func capture(depth: Int, into interner: StackInterner) -> StackID {
        let depth = min(max(depth, 0), maximumDepth)
        guard depth > 0 else { return .none }
        // Captured, hashed and looked up in the thread's cache in one call: a stack captured
        // before (most are) costs no Swift work here.
        var frames: UnsafePointer<UInt>?
        var count = 0
        var hash: UInt64 = 0
        let cached = rdiag_capture_stack_cached(interner.owner, Int32(depth), &frames, &count, &hash)
        return interner.interned(cached: cached, frames: frames, count: count, hash: hash)
    }

    /// Captures the calling thread's raw return addresses without interning them.
    @inline(never)
    package static func captureAddresses(depth: Int = defaultDepth) -> [UInt] {
        let depth = min(max(depth, 0), maximumDepth)
        guard depth > 0 else { return [] }
        return [UInt](unsafeUninitializedCapacity: depth) { buffer, initialized in
            initialized = buffer.withMemoryRebound(to: UnsafeMutableRawPointer.self) { pointers in
                max(Int(rdiag_capture_stack(pointers.baseAddress!, Int32(depth))), 0)
            }
        }
    }

    /// Whether stacks are walked along confirmed frame pointers (process-wide; see the type's
    /// documentation). ``Configuration/capturesAlongFramePointers`` sets it when an engine is
    /// created or configured.
    static func useFramePointers(_ enabled: Bool) {
        prepared
        rdiag_capture_stack_set_fast_path(enabled ? 1 : 0)
    }

    /// libunwind's per-thread caches, set up once.
    private static let prepared: Void = rdiag_backtrace_prepare()
}
