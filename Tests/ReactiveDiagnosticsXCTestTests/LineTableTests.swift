import CReactiveDiagnostics
import Foundation
import ReactiveDiagnosticsSymbolication
import Testing
import _ReactiveDiagnosticsProcess

/// ``LineTables``, the DWARF line reader a failing test is placed with, against
/// llvm-symbolizer: across this test binary's code, every line it gives is the one
/// llvm-symbolizer's outermost frame gives (``LLVMSymbolizer``'s), and it gives most of them.
@Suite("Line tables: the lines llvm-symbolizer gives, read without it")
struct LineTableTests {
    #if os(Linux)
    /// This executable's path, load bias and code segments (file addresses), from /proc/self/maps.
    private static func codeOfThisExecutable() throws -> (path: String, ranges: [Range<UInt64>]) {
        let path = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let image = try #require(ImageOfAddress.lookUp(UInt(bitPattern: #dsohandle)))
        #expect(image.path == path)
        // Read to its end: a sanitizer's process maps thousands of regions, more than one read of
        // a file whose size says 0 gives.
        let handle = try #require(FileHandle(forReadingAtPath: "/proc/self/maps"))
        defer { try? handle.close() }
        let maps = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
        var ranges: [Range<UInt64>] = []
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[1].hasPrefix("r-x"), fields[5...].joined(separator: " ") == path else {
                continue
            }
            let bounds = fields[0].split(separator: "-").compactMap { UInt64($0, radix: 16) }
            guard bounds.count == 2 else { continue }
            ranges.append((bounds[0] - UInt64(image.bias))..<(bounds[1] - UInt64(image.bias)))
        }
        return (path, ranges)
    }

    @Test(
        .enabled(if: SourceLineResolver.automatic(environment: ProcessInfo.processInfo.environment).symbolizer != nil))
    func everyLineItGivesIsLLVMSymbolizers() throws {
        let (path, ranges) = try Self.codeOfThisExecutable()
        let size = ranges.reduce(0) { $0 + $1.count }
        #expect(size > 0)
        // About 20,000 addresses spread over the code (an odd stride, so that they fall at every
        // position within instructions and functions).
        let stride = UInt64(max(1, size / 20_000)) | 1
        var addresses: [UInt64] = []
        for range in ranges {
            addresses += Swift.stride(from: range.lowerBound, to: range.upperBound, by: Int(stride)).map { $0 }
        }
        let symbolizer = try #require(
            SourceLineResolver.automatic(environment: ProcessInfo.processInfo.environment).symbolizer)
        // LLVMSymbolizer looks return offsets up one byte earlier.
        let expected = try LLVMSymbolizer(executable: symbolizer, timeout: 300)
            .resolve(image: path, returnOffsets: addresses.map { $0 + 1 })
        let tables = LineTables()
        let clock = ContinuousClock()
        let opened = clock.measure { #expect(tables.hasLines(image: path)) }
        let looked = clock.measure { _ = tables.location(image: path, address: addresses[addresses.count / 2]) }
        var agreed = 0
        var withLine = 0
        var withoutLine = 0
        var differences: [String] = []
        func text(_ location: LLVMSymbolizer.Location?) -> String {
            location.map { "\($0.file ?? "?"):\($0.line ?? 0):\($0.column ?? 0)" } ?? "nothing"
        }
        for address in addresses {
            // Where it is, without the function's name (which the tables do not read).
            let theirs = expected[address + 1].flatMap { found in
                found.file.map { LLVMSymbolizer.Location(file: $0, line: found.line, column: found.column) }
            }
            if let line = theirs?.line, line > 0 { withLine += 1 }
            switch tables.answer(image: path, address: address) {
            case .unknown:
                continue
            case .line(let ours):
                if theirs == ours {
                    agreed += 1
                } else {
                    differences.append(
                        "0x\(String(address, radix: 16)): ours \(text(ours)), llvm-symbolizer's \(text(theirs))")
                }
            case .noLine(let file, let column):
                // llvm-symbolizer gives the file alone, or nothing for compiler-generated code
                // (an async resume point aside, where LLVMSymbolizer looks further for a line).
                let ours = file.map { LLVMSymbolizer.Location(file: $0, line: nil, column: column) }
                if theirs == ours {
                    withoutLine += 1
                } else if theirs?.line == nil || theirs?.file != file {
                    differences.append(
                        "0x\(String(address, radix: 16)): ours no line in \(text(ours)), llvm-symbolizer's \(text(theirs))"
                    )
                }
            }
        }
        print(
            "line tables: opened in \(opened), a lookup \(looked); \(addresses.count) addresses, \(withLine) with a line by llvm-symbolizer, \(agreed) agreed, \(withoutLine) agreed without a line, \(differences.count) differ"
        )
        #expect(
            differences.isEmpty, "\(differences.count) differ, e.g. \(differences.prefix(10).joined(separator: "; "))")
        #expect(withLine > 1_000)
        // 98% in a debug build; 88% under AddressSanitizer, whose instrumented units the tables
        // leave to llvm-symbolizer more often.
        #expect(agreed * 10 >= withLine * 8, "answers \(agreed) of the \(withLine) llvm-symbolizer has a line for")
    }

    /// What a test process's resolver answers (line tables first, llvm-symbolizer for the rest)
    /// is what llvm-symbolizer alone answers, for every address: the tool's report and a failed
    /// test's place agree.
    @Test(
        .enabled(if: SourceLineResolver.automatic(environment: ProcessInfo.processInfo.environment).symbolizer != nil))
    func aTestProcessResolvesAsLLVMSymbolizerAlone() throws {
        let (path, ranges) = try Self.codeOfThisExecutable()
        let size = ranges.reduce(0) { $0 + $1.count }
        let stride = UInt64(max(1, size / 5_000)) | 1
        var offsets: Set<UInt64> = []
        for range in ranges {
            for address in Swift.stride(from: range.lowerBound, to: range.upperBound, by: Int(stride)) {
                offsets.insert(address + 1)
            }
        }
        let symbolizer = try #require(
            SourceLineResolver.automatic(environment: ProcessInfo.processInfo.environment).symbolizer)
        let alone = SourceLineResolver(symbolizer: symbolizer, timeout: 300).resolve([path: offsets])
        let inProcess = SourceLineResolver(symbolizer: symbolizer, timeout: 300, keepsRunning: true)
        #expect(inProcess.readsLineTables)
        let both = inProcess.resolve([path: offsets])
        #expect(alone.failures.isEmpty && both.failures.isEmpty)
        func place(_ location: LLVMSymbolizer.Location?) -> LLVMSymbolizer.Location? {
            location.flatMap { found in
                found.file.map { LLVMSymbolizer.Location(file: $0, line: found.line, column: found.column) }
            }
        }
        var differences: [String] = []
        for offset in offsets.sorted() {
            let key = SourceLineResolver.Key(image: path, returnOffset: offset)
            let expected = place(alone.locations[key])
            let actual = place(both.locations[key])
            if expected != actual {
                differences.append(
                    "+0x\(String(offset, radix: 16)): \(String(describing: actual)), alone \(String(describing: expected))"
                )
            }
        }
        #expect(offsets.count > 1_000)
        #expect(differences.isEmpty, "\(differences.count) of \(offsets.count) differ, e.g. \(differences.prefix(5))")
    }

    /// A closure's line and its variables' names (what a retain path's explanation names the
    /// captures with), read from the debug information, are llvm-symbolizer's `CODE` and
    /// `FRAME` answers, for the closures of this test binary.
    @Test(.enabled(if: SymbolizerLocator.find("llvm-nm", environment: ProcessInfo.processInfo.environment) != nil))
    func aClosuresLineAndNamesAreLLVMSymbolizers() throws {
        let (path, _) = try Self.codeOfThisExecutable()
        let environment = ProcessInfo.processInfo.environment
        let nm = try #require(SymbolizerLocator.find("llvm-nm", environment: environment))
        let symbolizer = try #require(SourceLineResolver.automatic(environment: environment).symbolizer)
        let listing = try Subprocess.run(
            nm.path, arguments: ["--defined-only", "--just-symbol-name", path], timeout: 120)
        let closures = String(decoding: listing.standardOutput, as: UTF8.self).split(separator: "\n")
            .filter { $0.hasPrefix("$s") && $0.range(of: #"fU[0-9]*_$"#, options: .regularExpression) != nil }
        #expect(closures.count > 500)
        let sample = Swift.stride(from: 0, to: closures.count, by: max(1, closures.count / 400)).map {
            String(closures[$0])
        }
        let session = SymbolizerSession(symbolizer: symbolizer.path)
        defer { session.close() }
        var read = 0
        var told = 0
        var differences: [String] = []
        for symbol in sample {
            let theirs = ClosureSource.resolve(symbol: symbol, image: path, session: session)
            if theirs != nil { told += 1 }
            guard let ours = LineTables.shared.function(named: symbol, image: path) else { continue }
            read += 1
            let same =
                theirs?.file == ours.file && theirs?.line == ours.declarationLine && theirs?.column == ours.column
                && theirs?.parameters == ours.names
            if !same {
                differences.append(
                    "\(symbol): ours \(ours.file):\(ours.declarationLine):\(ours.column) \(ours.names), llvm-symbolizer's "
                        + "\(theirs.map { "\($0.file):\($0.line):\($0.column) \($0.parameters ?? [])" } ?? "nothing")")
            }
        }
        print(
            "closures: \(sample.count) asked, llvm-symbolizer told \(told), the tables read \(read), \(differences.count) differ"
        )
        #expect(differences.isEmpty, "\(differences.count) differ, e.g. \(differences.prefix(5))")
        #expect(read * 10 >= told * 9, "the tables read \(read) of the \(told) closures llvm-symbolizer tells")
    }

    /// The debug sections of a 64-bit little-endian ELF image: name, offset and size.
    private static func debugSections(of image: [UInt8]) -> [(name: String, range: Range<Int>)] {
        func integer(_ offset: Int, _ size: Int) -> Int {
            (0..<size).reduce(0) { $0 | Int(image[offset + $1]) << (8 * $1) }
        }
        let sectionTable = integer(0x28, 8)
        let count = integer(0x3c, 2)
        let namesIndex = integer(0x3e, 2)
        let namesOffset = integer(sectionTable + namesIndex * 64 + 0x18, 8)
        var sections: [(String, Range<Int>)] = []
        for index in 0..<count {
            let header = sectionTable + index * 64
            let nameStart = namesOffset + integer(header, 4)
            let name = String(decoding: image[nameStart...].prefix { $0 != 0 }, as: UTF8.self)
            let offset = integer(header + 0x18, 8)
            let size = integer(header + 0x20, 8)
            if name.hasPrefix(".debug_"), size > 0, offset + size <= image.count {
                sections.append((name, offset..<(offset + size)))
            }
        }
        return sections
    }

    /// A copy of `image` whose sections named with one of `prefixes` are renamed (their names'
    /// first byte becomes `_`): without debug information, or without the part the tables read.
    private static func renamingSections(of image: [UInt8], withPrefixes prefixes: [String]) -> [UInt8] {
        func integer(_ offset: Int, _ size: Int) -> Int {
            (0..<size).reduce(0) { $0 | Int(image[offset + $1]) << (8 * $1) }
        }
        var copy = image
        let sectionTable = integer(0x28, 8)
        let namesOffset = integer(sectionTable + integer(0x3e, 2) * 64 + 0x18, 8)
        for index in 0..<integer(0x3c, 2) {
            let nameStart = namesOffset + integer(sectionTable + index * 64, 4)
            let name = String(decoding: image[nameStart...].prefix { $0 != 0 }, as: UTF8.self)
            if prefixes.contains(where: name.hasPrefix) {
                copy[nameStart] = UInt8(ascii: "_")
            }
        }
        return copy
    }

    /// An image without debug information (a library shipped without it, as libXCTest is) is
    /// answered at once, without a line and without starting llvm-symbolizer, which could only say
    /// that; an image whose debug information the tables cannot read is still asked of it.
    @Test(
        .enabled(if: SourceLineResolver.automatic(environment: ProcessInfo.processInfo.environment).symbolizer != nil),
        .enabled(if: (ProcessInfo.processInfo.environment["DEBUGINFOD_URLS"] ?? "").isEmpty))
    func anImageWithoutDebugInformationIsNotAskedOfLLVMSymbolizer() throws {
        let (path, ranges) = try Self.codeOfThisExecutable()
        let symbolizer = try #require(
            SourceLineResolver.automatic(environment: ProcessInfo.processInfo.environment).symbolizer)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("line-tables-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let image = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let stripped = directory.appendingPathComponent("stripped")
        let unreadable = directory.appendingPathComponent("unreadable")
        try Data(Self.renamingSections(of: image, withPrefixes: [".debug_", ".zdebug_", ".gnu_debug"])).write(
            to: stripped)
        try Data(Self.renamingSections(of: image, withPrefixes: [".debug_line"])).write(to: unreadable)
        // llvm-symbolizer, leaving a mark of each start.
        let marks = directory.appendingPathComponent("started")
        let script = directory.appendingPathComponent("llvm-symbolizer")
        try Data("#!/bin/sh\necho started >> '\(marks.path)'\nexec '\(symbolizer.path)' \"$@\"\n".utf8).write(
            to: script)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        func starts() -> Int {
            ((try? String(contentsOf: marks, encoding: .utf8)) ?? "").split(separator: "\n").count
        }
        var offsets: Set<UInt64> = []
        for range in ranges {
            offsets.insert(range.lowerBound + 0x40)
            offsets.insert(range.lowerBound + UInt64(range.count / 2))
        }

        let tables = LineTables()
        #expect(tables.hasNoDebugInformation(image: stripped.path, environment: [:]))
        #expect(!tables.hasNoDebugInformation(image: unreadable.path, environment: [:]))
        #expect(!tables.hasNoDebugInformation(image: path, environment: [:]))
        #expect(!tables.hasNoDebugInformation(image: stripped.path + "-missing", environment: [:]))
        #expect(
            !LineTables().hasNoDebugInformation(image: stripped.path, environment: ["DEBUGINFOD_URLS": "https://x"]),
            "a debuginfod server may have what the file lacks")

        let resolver = SourceLineResolver(
            symbolizer: URL(fileURLWithPath: script.path), timeout: 300, keepsRunning: true)
        let none = resolver.resolve([stripped.path: offsets])
        #expect(none.locations.isEmpty && none.failures.isEmpty)
        #expect(starts() == 0, "no llvm-symbolizer for an image without debug information")
        _ = resolver.resolve([unreadable.path: offsets])
        #expect(starts() == 1, "llvm-symbolizer asked what the tables cannot read")
    }

    /// Damaged debug information (bytes overwritten in the line programs, the units, their
    /// abbreviations and range lists; images cut short) is read without a crash or a read past
    /// its end (AddressSanitizer checks that in CI), and every answer names a file.
    @Test func damagedDebugInformationIsReadSafely() throws {
        let (path, ranges) = try Self.codeOfThisExecutable()
        try #require(!ranges.isEmpty)
        var image = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let sections = Self.debugSections(of: image).filter {
            [".debug_line", ".debug_info", ".debug_abbrev", ".debug_ranges", ".debug_str"].contains($0.name)
        }
        try #require(sections.count >= 3)
        var generator = SystemRandomNumberGenerator()
        func randomAddress() -> UInt64 {
            let range = ranges.randomElement(using: &generator) ?? 0..<1
            return UInt64.random(in: range, using: &generator)
        }
        // Addresses the intact image answers for, to ask again of the damaged ones.
        var known: [UInt64] = []
        image.withUnsafeBytes { bytes in
            guard let table = rdiag_line_table_read(bytes.baseAddress!, bytes.count) else { return }
            defer { rdiag_line_table_close(table) }
            var file = [CChar](repeating: 0, count: 4096)
            var line: UInt32 = 0
            var column: UInt32 = 0
            for _ in 0..<20_000 where known.count < 40 {
                let address = randomAddress()
                if rdiag_line_table_lookup(table, address, &file, file.count, &line, &column) == 1 {
                    known.append(address)
                }
            }
        }
        #expect(!known.isEmpty, "the intact image answers")
        var answered = 0
        func probe(_ size: Int) {
            image.withUnsafeBytes { bytes in
                guard let table = rdiag_line_table_read(bytes.baseAddress!, size) else { return }
                defer { rdiag_line_table_close(table) }
                var file = [CChar](repeating: 0, count: 4096)
                var names = [CChar](repeating: 0, count: 4096)
                var line: UInt32 = 0
                var column: UInt32 = 0
                var declaration: UInt32 = 0
                var count = 0
                for address in known + (0..<20).map({ _ in randomAddress() }) {
                    if rdiag_line_table_lookup(table, address, &file, file.count, &line, &column) == 1 {
                        answered += 1
                        #expect(file[0] != 0)
                    }
                    _ = rdiag_line_table_function(
                        table, address, &file, file.count, &line, &column, &declaration, &names, names.count, &count)
                }
            }
        }
        for round in 0..<30 {
            let section = sections[round % sections.count]
            var saved: [(Int, UInt8)] = []
            for _ in 0..<16 {
                let offset = Int.random(in: section.range, using: &generator)
                saved.append((offset, image[offset]))
                image[offset] = UInt8.random(in: 0...255, using: &generator)
            }
            probe(image.count)
            for (offset, byte) in saved.reversed() { image[offset] = byte }
        }
        for _ in 0..<5 {
            let section = sections.randomElement(using: &generator)!
            probe(Int.random(in: section.range, using: &generator))
        }
        #expect(answered > 0, "damaged here and there, most of the image still reads")
    }
    #endif
}
