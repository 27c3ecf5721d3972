package import Foundation

/// The one place that turns an address into file, line and column (and the function's
/// linkage name): the engine when it writes a report and when a finding fails a test, the
/// tool when it fills in a report written without lines.
///
/// Runs one `llvm-symbolizer` per binary with all of that binary's addresses, binaries in
/// parallel, and remembers every answer (a test process resolves each address at most once).
/// In a test process, the binary's own line programs answer first (``LineTables``): what they
/// tell is what llvm-symbolizer's outermost frame says, and llvm-symbolizer is asked the rest.
/// The process-wide resolver (``shared``) keeps one running per binary (``keepsRunning``): a
/// failing test asks a few addresses, and a start-up per failure cost more than the answers.
/// Never runs per event: only when a report is written or a failure is shown.
///
/// ```swift
/// let resolver = SourceLineResolver.automatic(environment: ProcessInfo.processInfo.environment)
/// let batch = resolver.resolve(["/path/MyPackageTests.xctest": [0x1a2b3]])
/// print(batch.locations[.init(image: "/path/MyPackageTests.xctest", returnOffset: 0x1a2b3)]?.line ?? 0)
/// ```
package final class SourceLineResolver: @unchecked Sendable {
    /// One address: its binary and its image-relative return address.
    package struct Key: Hashable, Sendable {
        /// The binary's path.
        package var image: String
        /// The return address relative to the image's load bias.
        package var returnOffset: UInt64

        /// Creates a key.
        package init(image: String, returnOffset: UInt64) {
            self.image = image
            self.returnOffset = returnOffset
        }
    }

    /// What one call resolved.
    package struct Batch: Sendable {
        /// The addresses resolved, with what llvm-symbolizer knew.
        package var locations: [Key: LLVMSymbolizer.Location] = [:]
        /// Binaries that could not be read, by path, with the reason.
        package var failures: [String: String] = [:]
    }

    /// The process-wide resolver, as the environment asks (see ``automatic(environment:)``):
    /// its cache and its running symbolizers are shared by every engine of the process.
    package static let shared = automatic(environment: ProcessInfo.processInfo.environment, keepsRunning: true)

    /// The llvm-symbolizer run, or `nil` when none is available.
    package let symbolizer: URL?
    /// Why there is no symbolizer, when there is none.
    package let unavailableReason: String?
    /// Seconds llvm-symbolizer may take per binary.
    package let timeout: TimeInterval
    /// Whether llvm-symbolizer is kept running between calls (``LLVMSymbolizer/keepsRunning``).
    package let keepsRunning: Bool

    private let lock = NSLock()
    private var cache: [Key: LLVMSymbolizer.Location?] = [:]
    private var failedImages: [String: String] = [:]
    private var warmUpClaimed = false

    /// A resolver running `symbolizer` (kept running between calls when `keepsRunning`); with
    /// `nil`, one that resolves nothing and says why.
    package init(
        symbolizer: URL?, unavailableReason: String? = nil, timeout: TimeInterval = 30, keepsRunning: Bool = false
    ) {
        self.symbolizer = symbolizer
        self.unavailableReason = symbolizer == nil ? unavailableReason ?? "no llvm-symbolizer" : nil
        self.timeout = timeout
        self.keepsRunning = keepsRunning
    }

    /// The resolver the environment asks for: `REACTIVE_DIAGNOSTICS_SYMBOLIZER` names the
    /// program (`none` turns lines off), else llvm-symbolizer beside `swift` or on `PATH`.
    package static func automatic(environment: [String: String], keepsRunning: Bool = false) -> SourceLineResolver {
        let key = SymbolizerLocator.environmentKey
        if let value = environment[key], !value.isEmpty {
            if value == "none" || value == "off" {
                return SourceLineResolver(symbolizer: nil, unavailableReason: "turned off by \(key)=\(value)")
            }
            guard FileManager.default.isExecutableFile(atPath: value) else {
                return SourceLineResolver(symbolizer: nil, unavailableReason: "\(key)=\(value) is not an executable")
            }
            return SourceLineResolver(symbolizer: URL(fileURLWithPath: value), keepsRunning: keepsRunning)
        }
        guard let found = SymbolizerLocator.find("llvm-symbolizer", environment: environment) else {
            return SourceLineResolver(
                symbolizer: nil,
                unavailableReason: "llvm-symbolizer was not found beside swift or on PATH (install LLVM, or set \(key))"
            )
        }
        return SourceLineResolver(symbolizer: found, keepsRunning: keepsRunning)
    }

    /// Whether the caller should run ``warmUp()``: `true` once, for a resolver that keeps
    /// llvm-symbolizer running (the engine asks at a process's first finding).
    package func claimWarmUp() -> Bool {
        guard keepsRunning, symbolizer != nil else { return false }
        return lock.withLock {
            defer { warmUpClaimed = true }
            return !warmUpClaimed
        }
    }

    /// Reads the main executable's (the test binary's) line programs, so that placing a
    /// finding when its test ends does not wait for that (a few milliseconds for a large binary).
    /// llvm-symbolizer is not started: the line tables answer a finding's lines and a closure's
    /// line and captures, and it starts on the first question they cannot answer (a global's
    /// name, a line in code they do not read), where it once started at every process's first
    /// finding and took 18 ms of CPU from the tests beside it. Blocks until then: call it off
    /// the test's path. Linux only (elsewhere the main executable is not read this way).
    package func warmUp() {
        #if os(Linux)
        guard symbolizer != nil, keepsRunning,
            let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        else { return }
        _ = LineTables.shared.hasLines(image: executable)
        #endif
    }

    /// Whether lines are first read from the images' own line programs (``LineTables``), and
    /// llvm-symbolizer asked only what they do not tell: what a process that keeps llvm-symbolizer
    /// running does (a failing test is placed at once, not after llvm-symbolizer has read the
    /// test binary), not the tool.
    package var readsLineTables: Bool { keepsRunning }

    /// Answers what the image's line programs tell (cached like llvm-symbolizer's answers) and
    /// returns the offsets they do not. A row without a line is llvm-symbolizer's answer too
    /// (the file alone, or nothing), except at an async function's resume point, where
    /// ``LLVMSymbolizer`` looks further into the function for the `await`'s line: left to it.
    private func answerFromLineTables(image: String, offsets: [UInt64], into batch: inout Batch) -> [UInt64] {
        var left: [UInt64] = []
        var found: [(Key, LLVMSymbolizer.Location?)] = []
        for offset in offsets {
            // A return offset is looked up one byte earlier, as LLVMSymbolizer does.
            let key = Key(image: image, returnOffset: offset)
            switch offset > 0 ? LineTables.shared.answer(image: image, address: offset - 1) : .unknown {
            case .line(let location):
                found.append((key, location))
            case .noLine(let file, let column)
            where !SymbolTables.shared.mayBeResumePoint(image: image, fileAddress: offset - 1):
                found.append((key, file.map { LLVMSymbolizer.Location(file: $0, line: nil, column: column) }))
            case .noLine, .unknown:
                left.append(offset)
            }
        }
        guard !found.isEmpty else { return left }
        lock.withLock {
            for (key, location) in found {
                cache[key] = .some(location)
                if let location { batch.locations[key] = location }
            }
        }
        return left
    }

    /// `llvm-symbolizer (/usr/bin/llvm-symbolizer)`, or `nil` without a symbolizer.
    package var description: String? {
        symbolizer.map { "llvm-symbolizer (\($0.path))" }
    }

    /// The location of one address (cached), or `nil` when it has none.
    package func location(image: String, returnOffset: UInt64) -> LLVMSymbolizer.Location? {
        resolve([image: [returnOffset]]).locations[Key(image: image, returnOffset: returnOffset)]
    }

    /// The last source line of a function that ran before the call returning to `returnOffset`
    /// in `image`: the line of the call itself, or, when the compiler made the call (a cleanup
    /// at the end of a scope, which debug information places at line 0), the line of the code
    /// just before it. Looks back at most `limit` bytes, never before `floor` (an earlier
    /// return address in the same image). `nil` when it cannot be told. Not cached: asked only
    /// when a premature cancellation is weighed.
    package func lastLine(
        image: String, before returnOffset: UInt64, notBefore floor: UInt64 = 0, limit: UInt64 = 1024
    ) -> LLVMSymbolizer.Location? {
        guard let symbolizer, returnOffset > 1 else { return nil }
        let lowest = max(floor, returnOffset > limit ? returnOffset - limit : 1)
        guard lowest < returnOffset else { return nil }
        // LLVMSymbolizer looks each return offset up one byte earlier: offsets lowest+1...returnOffset
        // ask for the addresses lowest...returnOffset-1.
        let offsets = Array((lowest + 1)...returnOffset)
        guard
            let found = try? LLVMSymbolizer(executable: symbolizer, timeout: timeout, keepsRunning: keepsRunning)
                .resolve(
                    image: image, returnOffsets: offsets)
        else { return nil }
        return offsets.reversed().lazy.compactMap { found[$0] }.first { $0.file != nil && $0.line != nil }
    }

    /// Resolves the return offsets of each binary: cached answers at once, the rest with one
    /// llvm-symbolizer per binary, binaries in parallel.
    package func resolve(_ wanted: [String: Set<UInt64>]) -> Batch {
        var batch = Batch()
        guard let symbolizer else { return batch }
        var missing: [(image: String, offsets: [UInt64])] = []
        lock.lock()
        for (image, offsets) in wanted {
            if let reason = failedImages[image] {
                batch.failures[image] = reason
                continue
            }
            var unknown: [UInt64] = []
            for offset in offsets {
                let key = Key(image: image, returnOffset: offset)
                if let cached = cache[key] {
                    if let location = cached { batch.locations[key] = location }
                } else {
                    unknown.append(offset)
                }
            }
            if !unknown.isEmpty { missing.append((image, unknown.sorted())) }
        }
        lock.unlock()
        if readsLineTables {
            missing = missing.compactMap { entry in
                if LineTables.shared.hasNoDebugInformation(image: entry.image) {
                    // No line to be had (a library shipped without debug information, such as
                    // libXCTest): llvm-symbolizer would start only to say so.
                    lock.withLock {
                        for offset in entry.offsets {
                            cache[Key(image: entry.image, returnOffset: offset)] = .some(nil)
                        }
                    }
                    return nil
                }
                let left = answerFromLineTables(image: entry.image, offsets: entry.offsets, into: &batch)
                return left.isEmpty ? nil : (entry.image, left)
            }
        }
        guard !missing.isEmpty else { return batch }
        missing.sort { $0.image < $1.image }
        let llvm = LLVMSymbolizer(executable: symbolizer, timeout: timeout, keepsRunning: keepsRunning)
        let work = missing
        let results = Results(count: work.count)
        DispatchQueue.concurrentPerform(iterations: work.count) { index in
            let (image, offsets) = work[index]
            do throws(LLVMSymbolizer.Failure) {
                results.set(index, .success(try llvm.resolve(image: image, returnOffsets: offsets)))
            } catch {
                results.set(index, .failure(error))
            }
        }
        lock.lock()
        for (index, entry) in work.enumerated() {
            switch results.get(index) {
            case .success(let found):
                for offset in entry.offsets {
                    let key = Key(image: entry.image, returnOffset: offset)
                    cache[key] = .some(found[offset])
                    if let location = found[offset] { batch.locations[key] = location }
                }
            case .failure(let failure):
                failedImages[entry.image] = failure.reason
                batch.failures[entry.image] = failure.reason
            case nil:
                break
            }
        }
        lock.unlock()
        return batch
    }
}

/// The answers of the parallel llvm-symbolizer runs, one slot per binary.
private final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [Result<[UInt64: LLVMSymbolizer.Location], LLVMSymbolizer.Failure>?]

    init(count: Int) {
        slots = Array(repeating: nil, count: count)
    }

    func set(_ index: Int, _ value: Result<[UInt64: LLVMSymbolizer.Location], LLVMSymbolizer.Failure>) {
        lock.lock()
        slots[index] = value
        lock.unlock()
    }

    func get(_ index: Int) -> Result<[UInt64: LLVMSymbolizer.Location], LLVMSymbolizer.Failure>? {
        lock.lock()
        defer { lock.unlock() }
        return slots[index]
    }
}
