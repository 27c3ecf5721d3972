import Foundation
import ReactiveDiagnosticsReport
package import ReactiveDiagnosticsSymbolication
import _ReactiveDiagnosticsSupport

/// Turns raw return addresses into ``SymbolizedFrame``s, caching every address it has seen.
///
/// Symbolization is slow (a libunwind procedure-name lookup costs tens of microseconds),
/// so the engine runs it only when a report is written or a finding is shown, never
/// per event. Function names come from a libunwind cursor placed at the address, which
/// finds internal, private and closure symbols that `dladdr` cannot; Swift names are
/// demangled with the runtime's `swift_demangle`, C++ names with `__cxa_demangle`.
///
/// ```swift
/// let frames = Symbolizer.shared.symbolize(StackCapture.captureAddresses(depth: 8))
/// print(frames.map(\.displayName).joined(separator: "\n"))
/// ```
package final class Symbolizer: Sendable {
    /// The process-wide symbolizer (its cache is shared by every engine).
    package static let shared = Symbolizer()

    private let cache = LockedValue([UInt: SymbolizedFrame]())
    private let classifier: FrameClassifier

    /// Creates a symbolizer using `classifier` to categorize frames.
    package init(classifier: FrameClassifier = .shared) {
        self.classifier = classifier
    }

    /// Symbolizes one return address.
    package func symbolize(_ address: UInt) -> SymbolizedFrame {
        if let cached = cache.withLock({ $0[address] }) {
            return cached
        }
        let frame = resolve(address)
        cache.withLock { $0[address] = frame }
        return frame
    }

    /// Symbolizes the function that starts at `address` (a function pointer, not a return
    /// address: it is looked up where it points, one byte in, so the lookup cannot fall in
    /// the previous function).
    public func symbolize(functionAt address: UInt) -> SymbolizedFrame {
        // `resolve` looks up `address - 1` as a return address's call instruction.
        symbolize(address &+ 2)
    }

    /// Symbolizes return addresses, innermost first.
    package func symbolize(_ addresses: [UInt]) -> [SymbolizedFrame] {
        addresses.map { symbolize($0) }
    }

    /// Symbolizes addresses and drops the diagnostics library's own leading frames (and the
    /// compiler glue among them), so the first frame is the code that called the library.
    package func symbolizeDroppingOwnFrames(_ addresses: [UInt], id: StackID = .none) -> SymbolizedStack {
        let frames = symbolize(addresses)
        let dropped = FrameClassifier.ownLeadingFrameCount(frames.map { ($0.function, $0.category) })
        return SymbolizedStack(id: id, frames: Array(frames[dropped...]), droppedFrames: dropped)
    }

    /// Number of addresses resolved so far.
    package var cachedCount: Int {
        cache.withLock { $0.count }
    }

    private func resolve(_ address: UInt) -> SymbolizedFrame {
        let found = ProcedureSymbol.lookUp(returnAddress: address)
        let (module, category) = classifier.classify(
            symbol: found.symbol, function: found.function, imagePath: found.imagePath)
        return SymbolizedFrame(
            address: address, imagePath: found.imagePath, imageBuildID: found.imageBuildID,
            imageOffset: found.imageOffset, symbol: found.symbol, function: found.function,
            symbolOffset: found.symbolOffset, module: module, category: category)
    }
}
