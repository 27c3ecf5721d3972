import Foundation
package import ReactiveDiagnosticsReport

extension DiagnosticsReport {
    /// The stacks a crash journal holds *raw*: frames with an image and an offset but no name,
    /// written by the thread that made a finding, whose process died before they were named.
    package var rawStackIDs: Set<Int> {
        Set(
            stacks.filter { stack in
                stack.frames.contains { $0.offset != nil }
                    && stack.frames.allSatisfy { $0.symbol == nil && $0.function == nil }
            }.map(\.id))
    }

    /// Names the raw stacks of a report rebuilt from a crash journal, as the engine would have:
    /// each frame's function and line from the binaries (through `resolver`, demangled by the
    /// Swift runtime), its module and category, the library's own leading frames dropped; then
    /// gives the findings left without a fingerprint theirs, by the engine's rule
    /// (``FindingFingerprint``), so that the gate matches them against a baseline like any other.
    ///
    /// Frames are classified as the process did: its generated test modules fold like
    /// frameworks (``FrameClassifier/generatedTestModules(processName:)``). Modules the process
    /// was told to fold (`REACTIVE_DIAGNOSTICS_FRAMEWORK_MODULES`) are not in the journal: pass
    /// a `classifier` that knows them.
    ///
    /// ```swift
    /// var report = try DiagnosticsReport.loadJournal(from: journal)
    /// let fill = report.nameRawStacks(with: SourceLineResolver(symbolizer: llvmSymbolizer))
    /// fill.notes.forEach { print($0) }
    /// ```
    ///
    /// - Returns: What the symbolizer resolved, and the binaries it could not use.
    package mutating func nameRawStacks(
        with resolver: SourceLineResolver, classifier: FrameClassifier? = nil
    ) -> SourceLineFill {
        let fill = nameStacks(rawStackIDs, with: resolver, classifier: classifier)
        fillMissingFingerprints()
        return fill
    }

    /// Gives the findings left without a fingerprint theirs, by the engine's rule, from their
    /// stacks as they are: a process may die between naming a finding's stacks and journaling
    /// its fingerprint, and with no stack raw, or none that can be named (no llvm-symbolizer),
    /// the finding still needs one for the gate to match it against a baseline.
    package mutating func fillMissingFingerprints() {
        let stackByID = Dictionary(stacks.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        for index in findings.indices where findings[index].fingerprint.isEmpty {
            let finding = findings[index]
            let frames = (finding.allocationStack ?? finding.eventStack).flatMap { stackByID[$0] }?.frames ?? []
            findings[index].fingerprint = FindingFingerprint.make(
                kind: finding.kind, label: FindingFingerprint.label(finding.label, folded: !finding.stages.isEmpty),
                frames: frames.map { ($0.function, $0.category) })
        }
    }

    /// Names the stacks `raw` (see ``nameRawStacks(with:classifier:)``).
    private mutating func nameStacks(
        _ raw: Set<Int>, with resolver: SourceLineResolver, classifier: FrameClassifier?
    ) -> SourceLineFill {
        guard !raw.isEmpty else { return SourceLineFill() }
        // The process folded the modules SwiftPM generated for its test binary like frameworks.
        let classifier = classifier ?? FrameClassifier.of(process: run.processName)
        let fill = fillSourceLines(with: resolver, stacks: raw, verifyBuildIDs: true, fillFunctions: true)
        let pathOfImage = Dictionary(images.map { ($0.id, $0.path) }, uniquingKeysWith: { first, _ in first })
        for index in stacks.indices where raw.contains(stacks[index].id) {
            var frames = stacks[index].frames
            for position in frames.indices {
                if let symbol = frames[position].symbol {
                    frames[position].function = Demangler.demangle(symbol)
                }
                let (module, category) = classifier.classify(
                    symbol: frames[position].symbol, function: frames[position].function,
                    imagePath: frames[position].image.flatMap { pathOfImage[$0] })
                frames[position].module = module
                frames[position].category = category
            }
            let dropped = FrameClassifier.ownLeadingFrameCount(frames.map { ($0.function, $0.category) })
            stacks[index].frames = Array(frames[dropped...])
            stacks[index].droppedFrames = dropped
        }
        return fill
    }
}
