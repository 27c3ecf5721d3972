import ReactiveDiagnosticsSymbolication
import _ReactiveDiagnosticsSupport

/// Cancels that came before any value, kept until a checkpoint decides (by symbolizing the
/// cancel stack, off the hot path) whether a released cancellable caused them.
final class PrematureCancelLedger: Sendable {
    struct Candidate: Hashable {
        var label: DiagnosticLabel
        var allocationStack: StackID
        var cancelStack: StackID
        var test: TestIdentity
        /// Not part of the identity: the same site always has the same markers, and hashing
        /// strings on every early cancel would cost more than everything else here.
        var markers: [String]

        static func == (lhs: Candidate, rhs: Candidate) -> Bool {
            lhs.label == rhs.label && lhs.allocationStack == rhs.allocationStack
                && lhs.cancelStack == rhs.cancelStack && lhs.test == rhs.test
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(label)
            hasher.combine(allocationStack)
            hasher.combine(cancelStack)
            hasher.combine(test)
        }
    }

    private let candidates = LockedValue([Candidate: Int]())

    func note(_ candidate: Candidate) {
        candidates.withLock { $0[candidate, default: 0] += 1 }
    }

    /// Removes and returns the candidates of `test` (all of them for `nil`).
    func take(test: TestIdentity?) -> [(Candidate, Int)] {
        candidates.withLock { candidates in
            let chosen = candidates.filter { test == nil || $0.key.test == test }
            for key in chosen.keys {
                candidates.removeValue(forKey: key)
            }
            return chosen.map { ($0.key, $0.value) }.sorted { $0.0.cancelStack < $1.0.cancelStack }
        }
    }
}

extension DiagnosticsEngine {
    static let prematureCancelStackDepth = 24

    /// Called by a monitor cancelled before any value: remembers the cancel's stack.
    func notePossiblePrematureCancel(
        label: DiagnosticLabel, allocationStack: StackID, test: TestIdentity, markers: [String]
    ) {
        guard allocationStack.isCaptured else { return }
        let stack = StackCapture.capture(depth: Self.prematureCancelStackDepth, into: stacks)
        premature.note(
            .init(
                label: label, allocationStack: allocationStack, cancelStack: stack, test: test, markers: markers))
    }

    /// Turns remembered cancels into findings when their stack shows a cancellable released in
    /// the very function that subscribed: the "forgot `.store(in:)`" bug. A cancellable released
    /// elsewhere (its owner deallocated mid-request, `cancellable = nil` in a later method), or
    /// kept by the test function itself until a later line, was let go on purpose and is not
    /// reported.
    func evaluatePrematureCancels(test: TestIdentity?) {
        for (candidate, count) in premature.take(test: test) {
            let cancel = symbolize(candidate.cancelStack).frames
            guard
                let markerIndex = cancel.firstIndex(where: { frame in
                    candidate.markers.contains { frame.function?.contains($0) == true }
                }), let marker = candidate.markers.first(where: { cancel[markerIndex].function?.contains($0) == true })
            else { continue }
            // The frame that released the cancellable: the first user frame past the
            // cancellable's own deinit machinery.
            let type = Self.markerType(marker)
            let releasing = cancel[(markerIndex + 1)...].first { frame in
                frame.category == .user && !(frame.function?.contains(type) ?? false)
            }
            let subscribing = symbolize(candidate.allocationStack).frames.first { $0.category == .user }
            guard let releasing, let subscribing, let function = releasing.function,
                function == subscribing.function,
                !Self.isHeldToALaterLineByTheTest(cancel: cancel, releasing: releasing, subscribing: subscribing)
            else { continue }
            let label = candidate.label.name
            let named = label.isEmpty ? "a stream" : "'\(label)'"
            record(
                FindingDraft(
                    kind: .prematureCancellation,
                    message:
                        "\(named) was cancelled before it produced anything because its cancellable was released (\(marker)) in the function that subscribed: store it, for example with .store(in: &cancellables)",
                    label: label.isEmpty ? nil : label, resourceKind: .subscription, test: candidate.test,
                    allocationStack: candidate.allocationStack, capturesEventStack: false,
                    eventStack: candidate.cancelStack,
                    details: ["count": "\(count)", "marker": marker, "releasedIn": function]))
        }
    }

    /// Whether the test function itself kept the cancellable in a variable and let it go on a
    /// later line than the one that subscribed (the end of the test, of a `do` block, of
    /// `withExtendedLifetime`): a test that checks that nothing arrives, not a forgotten
    /// `.store(in:)`. `_ = publisher.sink { … }` releases it on the subscribing line itself
    /// (the release is compiler cleanup right after the call: the last line that ran is the
    /// subscribing one), and an app's `refresh()` that drops its cancellable is not the test
    /// function (the test runner does not call it). Needs file:line (llvm-symbolizer);
    /// without it, nothing is excused.
    static func isHeldToALaterLineByTheTest(
        cancel: [SymbolizedFrame], releasing: SymbolizedFrame, subscribing: SymbolizedFrame,
        resolver: SourceLineResolver = .shared
    ) -> Bool {
        func line(_ location: LLVMSymbolizer.Location?) -> (file: String, line: Int)? {
            guard let location, let file = location.file, let line = location.line else { return nil }
            return (file, line)
        }
        guard let index = cancel.firstIndex(where: { $0.address == releasing.address }),
            let caller = cancel[(index + 1)...].first(where: { $0.category != .system }), isTestRunner(caller)
        else { return false }
        guard let image = releasing.imagePath, image == subscribing.imagePath,
            let releasingOffset = releasing.imageOffset, let subscribingOffset = subscribing.imageOffset,
            subscribingOffset > 0,
            let subscribed = line(resolver.location(image: image, returnOffset: UInt64(subscribingOffset))),
            let released = line(
                resolver.lastLine(
                    image: image, before: UInt64(releasingOffset), notBefore: UInt64(subscribingOffset)))
        else { return false }
        return released.file == subscribed.file && released.line > subscribed.line
    }

    /// A frame of the code that calls test functions: XCTest, Swift Testing and its `@Test`
    /// expansions, SwiftPM's generated list of the tests on Linux (`…PackageDiscoveredTests`).
    static func isTestRunner(_ frame: SymbolizedFrame) -> Bool {
        if let module = frame.module,
            module == "XCTest" || module == "Testing" || module.hasSuffix("PackageDiscoveredTests")
        {
            return true
        }
        return frame.symbol.map(FrameClassifier.isMacroExpansion) ?? false
    }

    /// `AnyCancellable.deinit` → `AnyCancellable`: the frames of the cancellable's own teardown.
    static func markerType(_ marker: String) -> String {
        for suffix in [".__deallocating_deinit", ".deinit"] where marker.hasSuffix(suffix) {
            return String(marker.dropLast(suffix.count))
        }
        return marker
    }
}
