import ReactiveDiagnosticsTestSupport
import Foundation
import ReactiveDiagnostics
import ReactiveDiagnosticsXCTest
import Testing

/// File:line from `llvm-symbolizer`: parsing, finding the executable, resolving a real frame.
@Suite("Source lines")
struct SourceLineResolverTests {
    @Test func parsesTheOutermostKnownLocation() {
        let output = """
            /usr/include/c++/inline.h:12:3
            /src/Tests/My:Odd/FeedTests.swift:42:17

            """
        #expect(SourceLineResolver.parse(output) == SourceLine(file: "/src/Tests/My:Odd/FeedTests.swift", line: 42, column: 17))
        #expect(SourceLineResolver.parse("??:0:0\n") == nil)
        #expect(SourceLineResolver.parse("/a/B.swift:7:0\n??:0:0\n") == SourceLine(file: "/a/B.swift", line: 7, column: 0))
        #expect(SourceLineResolver.parse("") == nil)
    }

    @Test func prefersTheSymbolizerBesideSwift() throws {
        let root = try ChildProcess.makeReportDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let toolchain = root.appendingPathComponent("toolchain")
        let other = root.appendingPathComponent("other")
        for directory in [toolchain, other] {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        for file in [toolchain.appendingPathComponent("swift"), toolchain.appendingPathComponent("llvm-symbolizer"),
                     other.appendingPathComponent("llvm-symbolizer")] {
            #expect(FileManager.default.createFile(atPath: file.path, contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o755]))
        }
        let path = "\(other.path):\(toolchain.path)"
        #expect(SourceLineResolver.findSymbolizer(environment: ["PATH": path]) == toolchain.appendingPathComponent("llvm-symbolizer").path)
        try FileManager.default.removeItem(at: toolchain.appendingPathComponent("swift"))
        #expect(SourceLineResolver.findSymbolizer(environment: ["PATH": path]) == other.appendingPathComponent("llvm-symbolizer").path)
        #expect(SourceLineResolver.findSymbolizer(environment: ["PATH": toolchain.path + "-missing"]) == nil)
    }

    @Test(.enabled(if: SourceLineResolver.shared.symbolizerPath != nil))
    func resolvesTheLineOfAFrameInThisTest() throws {
        let engine = DiagnosticsEngine(configuration: Configuration())
        let stack = engine.captureStack(); let line = #line
        let frame = try #require(engine.symbolize(stack).userFrames.first)
        let resolver = SourceLineResolver(symbolizer: SourceLineResolver.shared.symbolizerPath)
        let resolved = try #require(resolver.resolve(frame))
        #expect(resolved.file == #filePath && resolved.line == line)
        #expect(resolver.resolve(frame) == resolved, "cached")
        #expect(SourceLineResolver(symbolizer: nil).resolve(frame) == nil)
    }

    @Test func generatedTestModulesAreNamedAfterTheBinary() {
        #expect(FindingPresentation.generatedTestModules(processName: "FeedPackageTests.xctest")
            == ["FeedPackageTests", "FeedPackageDiscoveredTests"])
        #expect(FindingPresentation.generatedTestModules(processName: "Custom.xctest") == ["Custom"])
        #expect(FindingPresentation.generatedTestModules(processName: "swiftpm-testing-helper").isEmpty)
    }
}
