package import Foundation
import _ReactiveDiagnosticsProcess

/// Resolves addresses of one binary to function, file, line and column through
/// `llvm-symbolizer`, all addresses of an image in one process.
///
/// Runs `llvm-symbolizer --obj=IMAGE --functions=linkage --no-demangle` and writes one address
/// per line to its standard input (or, kept running, asks its ``SymbolizerSession`` one
/// `CODE` query per address). Report offsets are return addresses, so each is looked up
/// one byte earlier: inside the call instruction, which gives the caller's line rather than the
/// next statement's. Where code was inlined, llvm-symbolizer lists the inlined frames innermost
/// first; the location kept is the outermost one with a line, the line in the frame's own
/// function (a user's line rather than one inside an inlined standard-library helper).
///
/// ```swift
/// let symbolizer = LLVMSymbolizer(executable: URL(fileURLWithPath: "/usr/bin/llvm-symbolizer"), timeout: 30)
/// let locations = try symbolizer.resolve(image: "/path/MyTests.xctest", returnOffsets: [0x1a2b3])
/// print(locations[0x1a2b3]?.file ?? "?")
/// ```
package struct LLVMSymbolizer: Sendable {
    /// What llvm-symbolizer said about one address.
    package struct Location: Equatable, Hashable, Sendable {
        /// The linkage (mangled) name of the frame's own function, when known.
        package var linkageName: String?
        /// The source file, when known.
        package var file: String?
        /// The line, when known.
        package var line: Int?
        /// The column, when known.
        package var column: Int?

        /// Creates a location.
        package init(linkageName: String? = nil, file: String? = nil, line: Int? = nil, column: Int? = nil) {
            self.linkageName = linkageName
            self.file = file
            self.line = line
            self.column = column
        }
    }

    /// Why an image could not be symbolized.
    package struct Failure: Error, Equatable {
        /// One line describing it.
        package var reason: String
    }

    /// The llvm-symbolizer program.
    package let executable: URL
    /// Seconds one image may take.
    package let timeout: TimeInterval

    /// Whether the program is kept running between calls, one child per image
    /// (``SymbolizerSession``): what a test process does, which asks a few addresses at a time
    /// at each finding. The tool, which asks each image once, runs one child per call.
    package let keepsRunning: Bool

    /// Creates a symbolizer running `executable`, each image within `timeout` seconds, kept
    /// running between calls when `keepsRunning`.
    package init(executable: URL, timeout: TimeInterval, keepsRunning: Bool = false) {
        self.executable = executable
        self.timeout = timeout
        self.keepsRunning = keepsRunning
    }

    /// Resolves `returnOffsets` (image-relative return addresses) in the binary at `image`.
    ///
    /// - Returns: A location for each offset llvm-symbolizer knew something about.
    /// - Throws: ``Failure`` when the program cannot run, fails or times out.
    package func resolve(image: String, returnOffsets: [UInt64]) throws(Failure) -> [UInt64: Location] {
        let offsets = Array(Set(returnOffsets)).sorted()
        guard !offsets.isEmpty else { return [:] }
        let locations = try locations(image: image, addresses: offsets.map { $0 > 0 ? $0 - 1 : 0 })
        var resolved: [UInt64: Location] = [:]
        for (offset, location) in zip(offsets, locations) where location != Location() {
            resolved[offset] = location
        }
        try fillMissingLines(in: &resolved, image: image)
        return resolved
    }

    /// What llvm-symbolizer says of each of `addresses` (image-relative, looked up as given),
    /// in order.
    private func locations(image: String, addresses: [UInt64]) throws(Failure) -> [Location] {
        guard keepsRunning else {
            let result = try run(image: image, addresses: addresses)
            if result.timedOut {
                throw Failure(reason: "llvm-symbolizer took longer than \(Self.seconds(timeout)) s and was stopped")
            }
            guard result.status == 0, !result.crashed else {
                throw Failure(reason: "llvm-symbolizer failed with status \(result.status)")
            }
            return Self.parse(String(decoding: result.standardOutput, as: UTF8.self))
        }
        let session = SymbolizerSession.shared(symbolizer: executable.path, image: image)
        let deadline = Date().addingTimeInterval(timeout)
        let quoted = SymbolizerSession.quoted(image)
        var found: [Location] = []
        found.reserveCapacity(addresses.count)
        for address in addresses {
            let left = deadline.timeIntervalSinceNow
            guard left > 0, let answer = session.query("CODE \(quoted) 0x" + String(address, radix: 16), timeout: left)
            else {
                throw Failure(
                    reason: left > 0
                        ? "llvm-symbolizer stopped answering"
                        : "llvm-symbolizer took longer than \(Self.seconds(timeout)) s and was stopped")
            }
            found.append(Self.location(fromJSON: answer))
        }
        return found
    }

    /// One llvm-symbolizer run over `addresses` (image-relative, looked up as given).
    private func run(image: String, addresses: [UInt64]) throws(Failure) -> SubprocessResult {
        let input = addresses.map { "0x" + String($0, radix: 16) }.joined(separator: "\n") + "\n"
        do {
            return try Subprocess.run(
                executable.path, arguments: ["--obj=\(image)", "--functions=linkage", "--no-demangle"],
                input: Data(input.utf8), timeout: timeout)
        } catch {
            throw Failure(reason: "cannot run \(executable.path): \(error)")
        }
    }

    /// How far past an address without a line the line table is asked again.
    static let lineProbes: [UInt64] = [2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024]

    /// Addresses whose file is known but whose line is 0 are, in practice, the first
    /// instruction of an async function's resume point (where a frame of an async stack
    /// points) in generic code: the compiler marks the funclet's prologue, which reloads the
    /// generic context, as line 0. The `await` it resumes from is the first line the line
    /// table gives further into the same function (up to 1 KiB: instrumented builds, such as
    /// Thread Sanitizer's, have longer prologues): asked here, in one more run for
    /// the image, only when such an address was seen.
    private func fillMissingLines(in resolved: inout [UInt64: Location], image: String) throws(Failure) {
        let missing = resolved.filter {
            $0.value.file != nil && $0.value.line == nil
                && $0.value.linkageName.flatMap(ResumeSymbol.function(of:)) != nil
        }
        .keys.sorted()
        guard !missing.isEmpty else { return }
        var probes: [(offset: UInt64, address: UInt64)] = []
        for offset in missing {
            let start = offset > 0 ? offset - 1 : 0
            probes += Self.lineProbes.map { (offset, start + $0) }
        }
        guard let found = try? locations(image: image, addresses: probes.map(\.address)) else { return }
        for (probe, location) in zip(probes, found) {
            guard var known = resolved[probe.offset], known.line == nil, let line = location.line,
                location.linkageName == known.linkageName, location.file == known.file
            else { continue }
            known.line = line
            known.column = location.column
            resolved[probe.offset] = known
        }
    }

    /// Parses llvm-symbolizer's LLVM-style output: per address, a function line and a
    /// `file:line:column` line for each inlined frame (innermost first), then a blank line;
    /// `??` for what it does not know. One location per address: the outermost function and
    /// its outermost known line.
    package static func parse(_ output: String) -> [Location] {
        var locations: [Location] = []
        var block: [Substring] = []
        func closeBlock() {
            guard !block.isEmpty else { return }
            var location = Location()
            var pair = 0
            while pair * 2 < block.count {
                let function = block[pair * 2]
                if function != "??" { location.linkageName = String(function) }
                if pair * 2 + 1 < block.count {
                    var candidate = Location()
                    parseSourceLine(block[pair * 2 + 1], into: &candidate)
                    if candidate.file != nil && (candidate.line != nil || location.file == nil) {
                        location.file = candidate.file
                        location.line = candidate.line
                        location.column = candidate.column
                    }
                }
                pair += 1
            }
            locations.append(location)
            block.removeAll()
        }
        for line in output.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.isEmpty {
                closeBlock()
            } else {
                block.append(line)
            }
        }
        closeBlock()
        return locations
    }

    /// One answer of llvm-symbolizer's JSON output style to a `CODE` query, kept as ``parse(_:)``
    /// keeps a block: its frames come innermost first (`""` and `0` for what it does not know).
    package static func location(fromJSON answer: [String: Any]) -> Location {
        var location = Location()
        for frame in answer["Symbol"] as? [[String: Any]] ?? [] {
            if let function = frame["FunctionName"] as? String, !function.isEmpty, function != "??" {
                location.linkageName = function
            }
            guard let file = frame["FileName"] as? String, !file.isEmpty, file != "??",
                !file.hasSuffix("<compiler-generated>")
            else { continue }
            let line = (frame["Line"] as? Int).flatMap { $0 > 0 ? $0 : nil }
            guard line != nil || location.file == nil else { continue }
            location.file = file
            location.line = line
            location.column = (frame["Column"] as? Int).flatMap { $0 > 0 ? $0 : nil }
        }
        return location
    }

    /// `file:line:column` (the file may itself contain colons).
    private static func parseSourceLine(_ text: Substring, into location: inout Location) {
        var parts = text.split(separator: ":", omittingEmptySubsequences: false)
        var numbers: [Int] = []
        while parts.count > 1, numbers.count < 2, let number = Int(parts[parts.count - 1]) {
            numbers.insert(number, at: 0)
            parts.removeLast()
        }
        let file = parts.joined(separator: ":")
        guard file != "??", !file.isEmpty, !file.hasSuffix("<compiler-generated>") else { return }
        location.file = file
        if let line = numbers.first, line > 0 { location.line = line }
        if numbers.count > 1, numbers[1] > 0 { location.column = numbers[1] }
    }

    private static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
