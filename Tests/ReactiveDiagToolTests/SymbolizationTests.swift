import Foundation
import ReactiveDiagnosticsTestSupport
import ReactiveDiagTool
import ReactiveDiagnosticsReport
import ReactiveDiagnosticsSymbolication
import Testing

/// A tiny C program built with a known build id; it prints the image-relative address of
/// `target_function`, which the tests put into a report as a return address.
private struct SampleBinary {
    static let buildID = "0123456789abcdef0123456789abcdef01234567"
    static let source = """
        #define _GNU_SOURCE
        #include <link.h>
        #include <stdint.h>
        #include <stdio.h>

        __attribute__((noinline)) int target_function(int x) {
            return x * 3 + 1;
        }

        int swift_like(void) __asm__("$s4Demo3fooyyF");
        __attribute__((noinline)) int swift_like(void) {
            return 7;
        }

        static int first_image(struct dl_phdr_info *info, size_t size, void *data) {
            (void)size;
            *(uintptr_t *)data = info->dlpi_addr;
            return 1;
        }

        int main(void) {
            uintptr_t bias = 0;
            dl_iterate_phdr(first_image, &bias);
            printf("%lx %lx\\n", (unsigned long)((uintptr_t)&target_function - bias),
                   (unsigned long)((uintptr_t)&swift_like - bias));
            return target_function(1) == 4 && swift_like() == 7 ? 0 : 1;
        }
        """
    static let targetLine = line(containing: "int target_function(int x) {")
    static let swiftLikeLine = line(containing: "int swift_like(void) {")

    /// The 1-based line of the source that contains `text`.
    static func line(containing text: String) -> Int {
        (source.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains(text) } ?? -1) + 1
    }

    let path: String
    let targetOffset: UInt64
    let swiftLikeOffset: UInt64

    static var compiler: String? {
        ["clang", "cc", "gcc"].lazy.compactMap { tool(named: $0) }.first
    }

    static var symbolizer: String? {
        tool(named: "llvm-symbolizer")
    }

    static func tool(named name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":") + ["/usr/bin", "/opt/swift/usr/bin"] {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Compiles and runs the program in `directory`.
    static func build(in directory: URL) async throws -> SampleBinary {
        let source = directory.appendingPathComponent("sample.c")
        try Data(Self.source.utf8).write(to: source)
        let binary = directory.appendingPathComponent("sample").path
        let compile = try await run(
            try #require(compiler),
            [
                "-g", "-O0", "-fPIE", "-pie", "-Wl,--build-id=0x\(buildID)", "-o", binary, source.path,
            ])
        #expect(compile.status == 0, "the compiler failed: \(compile.output)")
        let output = try await run(binary, [])
        #expect(output.status == 0)
        let offsets = output.output.split(separator: " ").compactMap {
            UInt64($0.trimmingCharacters(in: .whitespacesAndNewlines), radix: 16)
        }
        #expect(offsets.count == 2)
        return SampleBinary(path: binary, targetOffset: offsets.first ?? 0, swiftLikeOffset: offsets.last ?? 0)
    }

    static func run(_ executable: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        let result = try await ProcessRunner.run(executable, arguments: arguments)
        return (result.status, result.standardOutput + result.standardError)
    }

    /// A report whose frames point into the binary (as return addresses: one past the
    /// function's first byte), into the same path with a wrong build id, and into a missing binary.
    func report() -> DiagnosticsReport {
        let frames = [
            ReportFrame(
                address: "0x55550000\(String(targetOffset + 1, radix: 16))", image: 0,
                offset: "0x" + String(targetOffset + 1, radix: 16), category: .user),
            ReportFrame(
                address: "0x55550000\(String(swiftLikeOffset + 1, radix: 16))", image: 0,
                offset: "0x" + String(swiftLikeOffset + 1, radix: 16), category: .user),
            ReportFrame(address: "0x7f0000001234", image: 1, offset: "0x1234", function: "rebuilt()", category: .user),
            ReportFrame(
                address: "0x7f0000005678", image: 2, offset: "0x5678", function: "elsewhere()", category: .system),
        ]
        let finding = ReportFinding(
            id: 1, kind: "leakedSubscription", severity: .error, message: "leaked", label: "sample",
            test: "SampleTests.testLeak()", fingerprint: "00112233445566ff", policy: "fail", allocationStack: 0)
        return DiagnosticsReport(
            run: RunInfo(
                processName: "sample", processID: 1, startTime: Date(timeIntervalSince1970: 0),
                endTime: Date(timeIntervalSince1970: 1)),
            findings: [finding], stacks: [ReportStack(id: 0, frames: frames)],
            images: [
                ReportImage(id: 0, path: path, buildID: Self.buildID),
                ReportImage(id: 1, path: path, buildID: "ffffffffffffffffffffffffffffffffffffffff"),
                ReportImage(id: 2, path: "/nonexistent/libgone.so", buildID: "aa"),
            ])
    }
}

@Suite(
    "symbolization",
    .enabled(
        if: SampleBinary.compiler != nil && SampleBinary.symbolizer != nil,
        "needs a C compiler and llvm-symbolizer (the Swift toolchain ships both)"))
struct SymbolizationTests {
    private var symbolizerPATH: String {
        let directories = [SampleBinary.symbolizer, SampleBinary.tool(named: "swift-demangle")]
            .compactMap { $0.map { URL(fileURLWithPath: $0).deletingLastPathComponent().path } }
        return directories.joined(separator: ":")
    }

    @Test("the GNU build id is read from the ELF note on disk")
    func buildID() async throws {
        try await withTemporaryDirectory { directory in
            let binary = try await SampleBinary.build(in: directory)
            #expect(ELFBuildID.read(path: binary.path) == SampleBinary.buildID)
            #expect(ELFBuildID.read(path: directory.appendingPathComponent("sample.c").path) == nil, "not ELF")
            #expect(ELFBuildID.read(path: directory.appendingPathComponent("missing").path) == nil)
            let truncated = directory.appendingPathComponent("truncated")
            try Data(try Data(contentsOf: URL(fileURLWithPath: binary.path)).prefix(100)).write(to: truncated)
            #expect(ELFBuildID.read(path: truncated.path) == nil, "a cut ELF file is no crash")
        }
    }

    @Test("symbolize fills file, line, symbol and function, checking build ids")
    func symbolizeCommand() async throws {
        try await withTemporaryDirectory { directory in
            let binary = try await SampleBinary.build(in: directory)
            try ReportFixtures.write(binary.report(), to: directory.appendingPathComponent("report.json"))
            let run = runTool(
                ["symbolize", "report.json", "-o", "symbolized.json"],
                environment: ["PATH": symbolizerPATH], in: directory.path)
            #expect(run.code == 0, "\(run.stderr)")
            #expect(
                run.stderrLines.contains(
                    "reactive-diag: note: /nonexistent/libgone.so: not on this machine; file:line not resolved for the frames of 1 binary"
                ))
            #expect(
                run.stderrLines.contains {
                    $0.contains("build id on disk (\(SampleBinary.buildID)) differs from the report's (ffff")
                })
            #expect(
                run.stderrLines.last
                    == "reactive-diag: resolved file:line for 2 of 4 frames in 1 binary; wrote symbolized.json")

            let report = try DiagnosticsReport.load(from: directory.appendingPathComponent("symbolized.json"))
            let frames = report.stacks[0].frames
            #expect(frames[0].file?.hasSuffix("sample.c") == true)
            #expect(frames[0].line == SampleBinary.targetLine)
            #expect(frames[0].symbol == "target_function")
            #expect(frames[0].function == "target_function")
            #expect(frames[1].line == SampleBinary.swiftLikeLine)
            #expect(frames[1].symbol == "$s4Demo3fooyyF")
            if SampleBinary.tool(named: "swift-demangle") != nil {
                #expect(frames[1].function == "Demo.foo() -> ()", "demangled through swift-demangle")
            }
            #expect(frames[2].file == nil, "a different build of the binary is not trusted")
            #expect(frames[3].file == nil)
        }
    }

    @Test("show resolves file:line through llvm-symbolizer on PATH, and does without it")
    func showUsesSymbolizer() async throws {
        try await withTemporaryDirectory { directory in
            let binary = try await SampleBinary.build(in: directory)
            try ReportFixtures.write(binary.report(), to: directory.appendingPathComponent("report.json"))
            let with = runTool(["show", "report.json"], environment: ["PATH": symbolizerPATH], in: directory.path)
            #expect(with.code == 0)
            #expect(with.stdout.contains("sample.c:\(SampleBinary.targetLine)"))
            let without = runTool(["show", "report.json"], environment: ["PATH": ""], in: directory.path)
            #expect(without.code == 0)
            #expect(!without.stdout.contains("sample.c:"))
            #expect(without.stdout.contains("(sample +0x"), "the image and offset instead")
            #expect(without.stderr.isEmpty)
            let disabled = runTool(
                ["show", "report.json", "--no-symbolize"], environment: ["PATH": symbolizerPATH], in: directory.path)
            #expect(!disabled.stdout.contains("sample.c:"))
        }
    }

    @Test("a symbolizer that hangs is stopped by the timeout")
    func timeout() async throws {
        try await withTemporaryDirectory { directory in
            let binary = try await SampleBinary.build(in: directory)
            try ReportFixtures.write(binary.report(), to: directory.appendingPathComponent("report.json"))
            let hanging = directory.appendingPathComponent("llvm-symbolizer")
            try Data("#!/bin/sh\nexec sleep 30\n".utf8).write(to: hanging)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hanging.path)
            let started = Date()
            let run = runTool(
                [
                    "symbolize", "report.json", "-o", "out.json", "--symbolizer", hanging.path,
                    "--symbolizer-timeout", "1",
                ], environment: ["PATH": ""], in: directory.path)
            #expect(run.code == 0)
            #expect(Date().timeIntervalSince(started) < 20)
            #expect(run.stderr.contains("took longer than 1 s and was stopped"))
        }
    }
}

@Suite("symbolization without llvm-symbolizer")
struct SymbolizerAbsentTests {
    @Test("symbolize without llvm-symbolizer is exit 2 with one line")
    func missingSymbolizer() throws {
        let run = runTool(
            ["symbolize", "shop-report.json", "-o", "/tmp/never-written.json"], environment: ["PATH": ""])
        #expect(run.code == 2)
        #expect(
            run.stderrLines == [
                "reactive-diag: llvm-symbolizer: not found on PATH; install LLVM (the Swift toolchain ships it) or pass --symbolizer PATH"
            ])
        let explicit = runTool([
            "symbolize", "shop-report.json", "-o", "x.json", "--symbolizer", "/nonexistent/llvm-symbolizer",
        ])
        #expect(explicit.code == 2)
        #expect(
            explicit.stderrLines == ["reactive-diag: /nonexistent/llvm-symbolizer: not an executable llvm-symbolizer"])
    }

    @Test("llvm-symbolizer output is parsed per address, files with colons included")
    func parsing() {
        let output = "target_function\n/src/a.c:5:0\n\n??\n??:0:0\n\n_Z3foov\n/src/odd:name.c:12:7\n\n"
        #expect(
            LLVMSymbolizer.parse(output) == [
                LLVMSymbolizer.Location(linkageName: "target_function", file: "/src/a.c", line: 5),
                LLVMSymbolizer.Location(),
                LLVMSymbolizer.Location(linkageName: "_Z3foov", file: "/src/odd:name.c", line: 12, column: 7),
            ])
    }
}
