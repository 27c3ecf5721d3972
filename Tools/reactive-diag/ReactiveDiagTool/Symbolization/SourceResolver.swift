import Foundation
import ReactiveDiagnosticsReport
import Synchronization

/// Fills in `file`, `line` and `column` (and, on request, `symbol` and `function`) of a
/// report's frames through llvm-symbolizer, one process per image.
///
/// Before trusting a binary it compares the GNU build id on disk with the one the report
/// recorded; on a mismatch (a rebuilt binary) its frames are left alone and a note says so.
///
/// ```swift
/// let resolver = SourceResolver(symbolizer: url, demangler: nil, timeout: 30)
/// let outcome = resolver.resolve(report, stacks: nil, fillFunctions: true)
/// outcome.notes.forEach { print($0) }
/// ```
struct SourceResolver {
    /// The llvm-symbolizer program.
    let symbolizer: URL
    /// `swift-demangle`, to turn linkage names into function names; `nil` keeps them mangled.
    let demangler: URL?
    /// Seconds each llvm-symbolizer (and swift-demangle) process may take.
    let timeout: TimeInterval

    /// What a resolution did.
    struct Outcome {
        /// The report with frames filled in.
        var report: DiagnosticsReport
        /// Frames that gained a source location.
        var resolvedFrames = 0
        /// Frames that could have been resolved (with an image and an offset).
        var candidateFrames = 0
        /// Images that were symbolized.
        var images = 0
        /// One line per problem (missing binary, build id mismatch, timeout), deterministic order.
        var notes: [String] = []
    }

    /// Resolves the frames of `stacks` (all stacks when `nil`) that have no file yet.
    func resolve(_ report: DiagnosticsReport, stacks: Set<Int>?, fillFunctions: Bool) -> Outcome {
        var outcome = Outcome(report: report)
        var wanted: [Int: Set<UInt64>] = [:]  // image id → return offsets
        for stack in report.stacks where stacks?.contains(stack.id) ?? true {
            for frame in stack.frames where frame.file == nil || (fillFunctions && frame.function == nil) {
                guard let image = frame.image, let offset = frame.offset.flatMap(Self.parseHex) else { continue }
                wanted[image, default: []].insert(offset)
                outcome.candidateFrames += 1
            }
        }
        guard !wanted.isEmpty else { return outcome }
        let index = ReportIndex(report)
        let imageIDs = wanted.keys.sorted()
        let offsets = wanted
        let results = Mutex([Int: Result<[UInt64: LLVMSymbolizer.Location], ImageProblem>]())
        let llvm = LLVMSymbolizer(executable: symbolizer, timeout: timeout)
        DispatchQueue.concurrentPerform(iterations: imageIDs.count) { position in
            let id = imageIDs[position]
            let result = Self.symbolize(image: index.image(id), offsets: offsets[id] ?? [], with: llvm)
            results.withLock { $0[id] = result }
        }
        var locations: [Int: [UInt64: LLVMSymbolizer.Location]] = [:]
        var problems: [ImageProblem] = []
        for (id, result) in results.withLock({ $0 }) {
            switch result {
            case .success(let found):
                locations[id] = found
                outcome.images += 1
            case .failure(let problem): problems.append(problem)
            }
        }
        outcome.notes = ImageProblem.notes(for: problems)
        let names = fillFunctions ? demangledNames(locations) : [:]
        outcome.report.stacks = report.stacks.map { stack in
            guard stacks?.contains(stack.id) ?? true else { return stack }
            var stack = stack
            for position in stack.frames.indices {
                let frame = stack.frames[position]
                guard let image = frame.image, let offset = frame.offset.flatMap(Self.parseHex),
                    let location = locations[image]?[offset]
                else { continue }
                if Self.apply(location, names: names, fillFunctions: fillFunctions, to: &stack.frames[position]) {
                    outcome.resolvedFrames += 1
                }
            }
            return stack
        }
        return outcome
    }

    /// Applies a location to a frame; returns whether the frame gained a file.
    private static func apply(
        _ location: LLVMSymbolizer.Location, names: [String: String], fillFunctions: Bool, to frame: inout ReportFrame
    ) -> Bool {
        var gainedFile = false
        if frame.file == nil, let file = location.file {
            frame.file = file
            frame.line = location.line
            frame.column = location.column
            gainedFile = true
        }
        if fillFunctions, let linkage = location.linkageName {
            if frame.symbol == nil { frame.symbol = linkage }
            if frame.function == nil { frame.function = names[linkage] ?? linkage }
        }
        return gainedFile
    }

    private static func symbolize(
        image: ReportImage?, offsets: Set<UInt64>, with llvm: LLVMSymbolizer
    ) -> Result<[UInt64: LLVMSymbolizer.Location], ImageProblem> {
        guard let image else { return .failure(ImageProblem(path: "?", kind: .missing)) }
        guard FileManager.default.isReadableFile(atPath: image.path) else {
            return .failure(ImageProblem(path: image.path, kind: .missing))
        }
        let onDisk = ELFBuildID.read(path: image.path)
        if let recorded = image.buildID, recorded.lowercased() != onDisk {
            return .failure(ImageProblem(path: image.path, kind: .buildIDMismatch(recorded: recorded, onDisk: onDisk)))
        }
        do {
            return .success(try llvm.resolve(image: image.path, returnOffsets: Array(offsets)))
        } catch {
            return .failure(ImageProblem(path: image.path, kind: .failed(error.reason)))
        }
    }

    /// Demangles every linkage name found, in one swift-demangle process.
    private func demangledNames(_ locations: [Int: [UInt64: LLVMSymbolizer.Location]]) -> [String: String] {
        let linkage = Set(locations.values.flatMap { $0.values.compactMap(\.linkageName) }).sorted()
        guard let demangler, !linkage.isEmpty else { return [:] }
        let input = Data((linkage.joined(separator: "\n") + "\n").utf8)
        guard let result = try? ProcessRunner.run(executable: demangler, arguments: [], input: input, timeout: timeout),
            result.status == 0, !result.timedOut
        else { return [:] }
        let lines = String(decoding: result.output, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count >= linkage.count else { return [:] }
        return Dictionary(uniqueKeysWithValues: zip(linkage, lines.prefix(linkage.count).map(String.init)))
    }

    /// `0x1a2b` → 6699.
    static func parseHex(_ text: String) -> UInt64? {
        let digits = text.hasPrefix("0x") || text.hasPrefix("0X") ? text.dropFirst(2) : Substring(text)
        return UInt64(digits, radix: 16)
    }
}
