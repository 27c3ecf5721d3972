import CReactiveDiagnostics

/// Raw backtrace capture through libunwind.
///
/// Captures return addresses only; nothing is symbolized here. A capture of depth 32
/// costs about 6.5 ns a frame plus interning (see the benchmark in `Docs/Performance.md`).
///
/// ```swift
/// let id = StackCapture.capture(depth: 32, into: DiagnosticsEngine.shared.stacks)
/// ```
package enum StackCapture {
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
    package static func capture(depth: Int, into interner: StackInterner) -> StackID {
        let depth = min(max(depth, 0), maximumDepth)
        guard depth > 0 else { return .none }
        return withUnsafeTemporaryAllocation(of: UInt.self, capacity: depth) { buffer in
            let count = buffer.withMemoryRebound(to: UnsafeMutableRawPointer.self) { pointers in
                Int(rdiag_backtrace(pointers.baseAddress!, Int32(depth)))
            }
            return interner.intern(UnsafeBufferPointer(rebasing: buffer[0..<max(count, 0)]))
        }
    }

    /// Captures the calling thread's raw return addresses without interning them.
    @inline(never)
    package static func captureAddresses(depth: Int = defaultDepth) -> [UInt] {
        let depth = min(max(depth, 0), maximumDepth)
        guard depth > 0 else { return [] }
        return [UInt](unsafeUninitializedCapacity: depth) { buffer, initialized in
            initialized = buffer.withMemoryRebound(to: UnsafeMutableRawPointer.self) { pointers in
                max(Int(rdiag_backtrace(pointers.baseAddress!, Int32(depth))), 0)
            }
        }
    }
}
