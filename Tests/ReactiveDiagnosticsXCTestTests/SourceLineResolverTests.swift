import ReactiveDiagnosticsTestSupport
import Foundation
import ReactiveDiagnostics
import ReactiveDiagnosticsSymbolication
import ReactiveDiagnosticsXCTest
import Testing

/// File:line from `llvm-symbolizer`: parsing, finding the executable, resolving a real frame.
@Suite("Source lines")
struct SourceLineResolverTests {
    @Test func parsesTheOutermostKnownLocation() {
        let output = """
            _ZN6inline3fooEv
            /usr/include/c++/inline.h:12:3
            $s4Feed5TestsC4testyyF
            /src/Tests/My:Odd/FeedTests.swift:42:17

            ??
            ??:0:0

            $s1B1fyyF
            /a/B.swift:7:0
            ??
            <compiler-generated>:0:0

            """
        #expect(
            LLVMSymbolizer.parse(output) == [
                LLVMSymbolizer.Location(
                    linkageName: "$s4Feed5TestsC4testyyF", file: "/src/Tests/My:Odd/FeedTests.swift", line: 42,
                    column: 17),
                LLVMSymbolizer.Location(),
                LLVMSymbolizer.Location(linkageName: "$s1B1fyyF", file: "/a/B.swift", line: 7),
            ])
        #expect(LLVMSymbolizer.parse("").isEmpty)
    }

    @Test func prefersTheSymbolizerBesideSwift() throws {
        let root = try ChildProcess.makeReportDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let toolchain = root.appendingPathComponent("toolchain")
        let other = root.appendingPathComponent("other")
        for directory in [toolchain, other] {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        for file in [
            toolchain.appendingPathComponent("swift"), toolchain.appendingPathComponent("llvm-symbolizer"),
            other.appendingPathComponent("llvm-symbolizer"),
        ] {
            #expect(
                FileManager.default.createFile(
                    atPath: file.path, contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o755]))
        }
        let path = "\(other.path):\(toolchain.path)"
        #expect(
            SymbolizerLocator.find("llvm-symbolizer", environment: ["PATH": path])?.path
                == toolchain.appendingPathComponent("llvm-symbolizer").path)
        try FileManager.default.removeItem(at: toolchain.appendingPathComponent("swift"))
        #expect(
            SymbolizerLocator.find("llvm-symbolizer", environment: ["PATH": path])?.path
                == other.appendingPathComponent("llvm-symbolizer").path)
        #expect(SymbolizerLocator.find("llvm-symbolizer", environment: ["PATH": toolchain.path + "-missing"]) == nil)
    }

    @Test func theEnvironmentNamesOrTurnsOffTheSymbolizer() {
        let off = SourceLineResolver.automatic(environment: [
            "REACTIVE_DIAGNOSTICS_SYMBOLIZER": "none", "PATH": "/usr/bin",
        ])
        #expect(off.symbolizer == nil && off.unavailableReason == "turned off by REACTIVE_DIAGNOSTICS_SYMBOLIZER=none")
        let wrong = SourceLineResolver.automatic(environment: [
            "REACTIVE_DIAGNOSTICS_SYMBOLIZER": "/nonexistent/llvm-symbolizer"
        ])
        #expect(
            wrong.unavailableReason
                == "REACTIVE_DIAGNOSTICS_SYMBOLIZER=/nonexistent/llvm-symbolizer is not an executable")
        let absent = SourceLineResolver.automatic(environment: ["PATH": ""])
        #expect(absent.unavailableReason?.hasPrefix("llvm-symbolizer was not found beside swift or on PATH") == true)
        #expect(absent.location(image: "/bin/sh", returnOffset: 0x1000) == nil)
    }

    @Test(.enabled(if: SourceLineResolver.shared.symbolizer != nil))
    func resolvesTheLineOfAFrameInThisTest() throws {
        let engine = DiagnosticsEngine(configuration: Configuration())
        let stack = engine.captureStack(); let line = #line
        let frame = try #require(engine.symbolize(stack).userFrames.first)
        let resolved = try #require(engine.sourceLine(of: frame))
        #expect(resolved.file == #filePath && resolved.line == line)
        #expect(engine.sourceLine(of: frame) == resolved, "cached")
        let blind = DiagnosticsEngine(
            configuration: Configuration(),
            sourceLineResolver: SourceLineResolver(symbolizer: nil, unavailableReason: "test"))
        #expect(blind.sourceLine(of: frame) == nil)
    }

    @Test func generatedTestModulesAreNamedAfterTheBinary() {
        #expect(
            FindingPresentation.generatedTestModules(processName: "FeedPackageTests.xctest")
                == ["FeedPackageTests", "FeedPackageDiscoveredTests"])
        #expect(FindingPresentation.generatedTestModules(processName: "Custom.xctest") == ["Custom"])
        #expect(FindingPresentation.generatedTestModules(processName: "swiftpm-testing-helper").isEmpty)
    }
}
