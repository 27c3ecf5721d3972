import CReactiveDiagnostics
import Foundation
import ReactiveDiagnostics
import ReactiveDiagnosticsSymbolication
import ReactiveDiagnosticsTestSupport
import Testing
import _ReactiveDiagnosticsProcess

/// Naming frames without a child per question: the process's own symbol tables (what
/// libunwind's `unw_get_proc_name` answers, found by binary search), and llvm-symbolizer kept
/// running (``SymbolizerSession``) for lines.
@Suite("Symbol lookup: symbol tables and a symbolizer kept running")
struct SymbolLookupTests {
    /// libunwind's answer for `address` (what ProcedureSymbol asked before the tables).
    private func libunwindName(_ address: UInt) -> (String, UInt)? {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 4096) { buffer in
            var offset: UInt = 0
            guard rdiag_proc_name(address, buffer.baseAddress!, buffer.count, &offset) == 0 else { return nil }
            return (String(cString: buffer.baseAddress!), offset)
        }
    }

    #if os(Linux)
    @Test func theTablesNameEveryFrameAsLibunwindDoes() {
        // This test's own stack: its function, the testing library's, Foundation's, libc's.
        let addresses = Thread.callStackReturnAddresses.map { UInt(truncating: $0) }
        #expect(addresses.count > 5)
        var compared = 0
        for address in addresses {
            // Where an image has no full symbol table (libc is stripped), libunwind names the
            // nearest exported symbol before the address whatever its size (`start_thread`
            // came out as `pthread_condattr_setpshared+1300`): the tables name no function there.
            // Aliases (several symbols of one function, as a sanitizer's `__interceptor_backtrace`
            // and `___interceptor_backtrace`) may be named either way: the offset says it is the
            // same function.
            let found = ProcedureSymbol.lookUp(returnAddress: address)
            guard let symbol = found.symbol else { continue }
            let expected = libunwindName(address - 1)
            #expect(found.symbolOffset == expected.map { $0.1 + 1 }, "frame \(String(address, radix: 16))")
            if let expected, symbol != expected.0 {
                // An exported alias: the loader finds libunwind's name at the same start.
                let start = address - 1 - expected.1
                let alias = dlsym(nil, expected.0).map { UInt(bitPattern: $0) }
                #expect(alias == start, "frame \(String(address, radix: 16)): \(symbol), libunwind \(expected.0)")
            }
            compared += 1
        }
        #expect(compared > 5, "named \(compared) of \(addresses.count) frames")
        let own = addresses.map { ProcedureSymbol.lookUp(returnAddress: $0).function ?? "" }
        #expect(own.contains { $0.contains("theTablesNameEveryFrameAsLibunwindDoes") })
    }

    @Test func aFileThatIsNotELFHasNoTable() throws {
        let directory = try ChildProcess.makeReportDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let text = directory.appendingPathComponent("not-elf").path
        #expect(FileManager.default.createFile(atPath: text, contents: Data(String(repeating: "x", count: 4096).utf8)))
        #expect(rdiag_symbol_table_open(text) == nil)
        #expect(rdiag_symbol_table_open(directory.appendingPathComponent("missing").path) == nil)
        let ownImage = try #require(ImageOfAddress.lookUp(UInt(truncating: Thread.callStackReturnAddresses[0])))
        let table = try #require(rdiag_symbol_table_open(ownImage.path))
        defer { rdiag_symbol_table_close(table) }
        #expect(rdiag_symbol_table_count(table) > 1_000)
        var offset: UInt64 = 0
        #expect(rdiag_symbol_table_lookup(table, 0, &offset) == nil, "no function at address 0")
    }
    #endif

    @Test func aSessionAnswersLineByLine() throws {
        let session = try LineSession("/bin/cat", arguments: [])
        #expect(session.ask("first", timeout: 10) == "first")
        #expect(session.ask("second line", timeout: 10) == "second line")
        session.close()
        #expect(!session.isOpen && session.ask("third", timeout: 1) == nil)
    }

    @Test func aSessionWhoseChildEndsOrStallsIsClosed() throws {
        let ended = try LineSession("/bin/sh", arguments: ["-c", "exit 0"])
        #expect(ended.ask("anyone?", timeout: 10) == nil, "a child that ended answers nothing (and no SIGPIPE)")
        #expect(!ended.isOpen)
        let silent = try LineSession("/bin/sh", arguments: ["-c", "sleep 30"])
        let started = Date()
        #expect(silent.ask("anyone?", timeout: 0.2) == nil)
        #expect(Date().timeIntervalSince(started) < 20, "the timeout, not the child's end")
        #expect(!silent.isOpen)
    }

    #if os(Linux)
    /// A session's child may live as long as the process: it must not keep a file the process
    /// is writing (ETXTBSY for a script written while one started, in CI's parallel run).
    @Test func aSessionsChildKeepsNoOtherDescriptor() throws {
        let directory = try ChildProcess.makeReportDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let written = open(directory.appendingPathComponent("being-written").path, O_WRONLY | O_CREAT, 0o644)
        #expect(written > 2)
        defer { close(written) }
        let session = try LineSession("/bin/sh", arguments: ["-c", "read line; echo $(ls /proc/$$/fd)"])
        defer { session.close() }
        let descriptors = try #require(session.ask("which?", timeout: 10)).split(separator: " ").compactMap {
            Int32($0)
        }
        #expect(descriptors.contains(0) && descriptors.contains(1))
        #expect(!descriptors.contains(written), "the child holds \(descriptors)")
    }
    #endif

    @Test(.enabled(if: SourceLineResolver.shared.symbolizer != nil))
    func oneSymbolizerAnswersEveryQuestionOfAnImage() throws {
        let symbolizer = try #require(SourceLineResolver.shared.symbolizer).path
        let stack = Thread.callStackReturnAddresses.map { UInt(truncating: $0) }; let line = #line
        let address = try #require(
            stack.first {
                ProcedureSymbol.lookUp(returnAddress: $0).function?.contains("oneSymbolizerAnswersEveryQuestion")
                    == true
            })
        let image = try #require(ImageOfAddress.lookUp(address - 1))
        let session = SymbolizerSession(symbolizer: symbolizer)
        defer { session.close() }
        let quoted = SymbolizerSession.quoted(image.path)
        for _ in 0..<3 {
            let answer = try #require(session.query("CODE \(quoted) 0x" + String(address - 1 - image.bias, radix: 16)))
            let location = LLVMSymbolizer.location(fromJSON: answer)
            #expect(location.file == #filePath && location.line == line)
            #expect(location.linkageName?.hasPrefix("$s") == true)
        }
        #expect(session.query("CODE \"/nonexistent/image\" 0x1000") == nil, "an error answer is no answer")
        #expect(session.query("CODE \(quoted) 0x1") != nil, "and the session goes on")
    }

    @Test func theJSONAnswerKeepsTheOutermostKnownLine() {
        let answer: [String: Any] = [
            "Symbol": [
                ["FunctionName": "_ZN6inline3fooEv", "FileName": "/usr/include/c++/inline.h", "Line": 12, "Column": 3],
                [
                    "FunctionName": "$s4Feed5TestsC4testyyF", "FileName": "/src/FeedTests.swift", "Line": 42,
                    "Column": 17,
                ],
                ["FunctionName": "", "FileName": "", "Line": 0, "Column": 0],
            ]
        ]
        #expect(
            LLVMSymbolizer.location(fromJSON: answer)
                == LLVMSymbolizer.Location(
                    linkageName: "$s4Feed5TestsC4testyyF", file: "/src/FeedTests.swift", line: 42, column: 17))
        let generated: [String: Any] = [
            "Symbol": [["FunctionName": "$s1B1fyyF", "FileName": "<compiler-generated>", "Line": 0, "Column": 0]]
        ]
        #expect(LLVMSymbolizer.location(fromJSON: generated) == LLVMSymbolizer.Location(linkageName: "$s1B1fyyF"))
    }
}
