package import Foundation
package import ReactiveDiagnosticsReport
import _ReactiveDiagnosticsProcess

/// What filling in a report's source lines did.
package struct SourceLineFill: Sendable {
    /// Frames that gained a file.
    package var resolvedFrames = 0
    /// Frames that could have been resolved (with an image and an offset).
    package var candidateFrames = 0
    /// Binaries symbolized.
    package var images = 0
    /// Binaries that could not be used.
    package var problems: [ImageProblem] = []

    /// One line per problem (missing binary, build id mismatch, timeout), in a deterministic order.
    package var notes: [String] {
        ImageProblem.notes(for: problems)
    }
}

extension DiagnosticsReport {
    /// Fills in `file`, `line` and `column` (and, with `fillFunctions`, `symbol` and `function`)
    /// of the frames that have none, through `resolver`.
    ///
    /// - Parameters:
    ///   - stacks: The stacks to resolve; `nil` for every stack.
    ///   - categories: The frame categories to resolve; `nil` for all.
    ///   - verifyBuildIDs: Whether to compare each binary's GNU build id on disk with the
    ///     report's first, leaving a rebuilt binary's frames alone (offline use).
    ///   - demangler: `swift-demangle`, to name frames from their linkage names.
    package mutating func fillSourceLines(
        with resolver: SourceLineResolver, stacks: Set<Int>? = nil, categories: Set<FrameCategory>? = nil,
        verifyBuildIDs: Bool, fillFunctions: Bool = false, demangler: URL? = nil
    ) -> SourceLineFill {
        var fill = SourceLineFill()
        var wanted: [Int: Set<UInt64>] = [:]  // image id → return offsets
        for stack in self.stacks where stacks?.contains(stack.id) ?? true {
            for frame in stack.frames where frame.file == nil || (fillFunctions && frame.function == nil) {
                guard categories?.contains(frame.category) ?? true, let image = frame.image,
                    let offset = frame.offset.flatMap(Self.parseHex)
                else { continue }
                wanted[image, default: []].insert(offset)
                fill.candidateFrames += 1
            }
        }
        guard !wanted.isEmpty, resolver.symbolizer != nil else { return fill }
        let imagesByID = Dictionary(images.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var requests: [String: Set<UInt64>] = [:]
        var pathOfImage: [Int: String] = [:]
        for (id, offsets) in wanted.sorted(by: { $0.key < $1.key }) {
            guard let image = imagesByID[id] else { continue }
            if let problem = Self.problem(with: image, verifyBuildID: verifyBuildIDs) {
                if !fill.problems.contains(problem) { fill.problems.append(problem) }
                continue
            }
            requests[image.path, default: []].formUnion(offsets)
            pathOfImage[id] = image.path
        }
        let batch = resolver.resolve(requests)
        for (path, reason) in batch.failures.sorted(by: { $0.key < $1.key }) {
            fill.problems.append(ImageProblem(path: path, kind: .failed(reason)))
        }
        fill.images = Set(requests.keys).subtracting(batch.failures.keys).count
        let names =
            fillFunctions
            ? Self.demangle(
                Set(batch.locations.values.compactMap(\.linkageName)), with: demangler, timeout: resolver.timeout) : [:]
        for index in self.stacks.indices where stacks?.contains(self.stacks[index].id) ?? true {
            for position in self.stacks[index].frames.indices {
                let frame = self.stacks[index].frames[position]
                guard let image = frame.image, let path = pathOfImage[image],
                    let offset = frame.offset.flatMap(Self.parseHex),
                    let location = batch.locations[SourceLineResolver.Key(image: path, returnOffset: offset)]
                else { continue }
                if Self.apply(
                    location, names: names, fillFunctions: fillFunctions, to: &self.stacks[index].frames[position])
                {
                    fill.resolvedFrames += 1
                }
            }
        }
        return fill
    }

    /// Records in ``sourceLines`` how complete the lines are after `fill`, and why some are missing.
    package mutating func recordSourceLines(resolver: SourceLineResolver, fill: SourceLineFill) {
        let reason: String
        if let unavailable = resolver.unavailableReason {
            reason = unavailable
        } else if !fill.problems.isEmpty {
            reason = fill.notes.joined(separator: "; ")
        } else {
            reason =
                "the binaries have no line information for these frames (built without debug information, or stripped?)"
        }
        sourceLines = SourceLineStatus.measure(self, resolver: resolver.description, reason: reason)
    }

    /// `0x1a2b` → 6699.
    package static func parseHex(_ text: String) -> UInt64? {
        let digits = text.hasPrefix("0x") || text.hasPrefix("0X") ? text.dropFirst(2) : Substring(text)
        return UInt64(digits, radix: 16)
    }

    private static func problem(with image: ReportImage, verifyBuildID: Bool) -> ImageProblem? {
        guard FileManager.default.isReadableFile(atPath: image.path) else {
            return ImageProblem(path: image.path, kind: .missing)
        }
        guard verifyBuildID else { return nil }
        let onDisk = ELFBuildID.read(path: image.path)
        if let recorded = image.buildID, recorded.lowercased() != onDisk {
            return ImageProblem(path: image.path, kind: .buildIDMismatch(recorded: recorded, onDisk: onDisk))
        }
        return nil
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

    /// Demangles linkage names in one swift-demangle process.
    private static func demangle(
        _ linkage: Set<String>, with demangler: URL?, timeout: TimeInterval
    ) -> [String: String] {
        let names = linkage.sorted()
        guard let demangler, !names.isEmpty else { return [:] }
        let input = Data((names.joined(separator: "\n") + "\n").utf8)
        guard let result = try? Subprocess.run(demangler.path, arguments: [], input: input, timeout: timeout),
            result.status == 0, !result.timedOut, !result.crashed
        else { return [:] }
        let lines = String(decoding: result.standardOutput, as: UTF8.self).split(
            separator: "\n", omittingEmptySubsequences: false)
        guard lines.count >= names.count else { return [:] }
        return Dictionary(uniqueKeysWithValues: zip(names, lines.prefix(names.count).map(String.init)))
    }
}
