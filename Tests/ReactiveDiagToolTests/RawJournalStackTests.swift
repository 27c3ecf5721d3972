import Foundation
import ReactiveDiagTool
import ReactiveDiagnosticsReport
import ReactiveDiagnosticsSymbolication
import Testing

/// A test process that dies before its journal named a finding's stacks leaves them raw (image
/// and offset): the tool names them when it reads the journal.
@Suite("Raw stacks of a crash journal")
struct RawJournalStackTests {
    /// A journal as a process leaves it when it dies right after a finding: the stack as the
    /// finding's thread wrote it (this function's own stack), no fingerprint yet.
    @inline(never)
    static func journalWithARawStack() -> Data {
        var segments = ImageSegments()
        var images: [String: Int] = [:]
        var frames: [ReportFrame] = []
        for number in Thread.callStackReturnAddresses.prefix(12) {
            let address = number.uintValue
            var frame = ReportFrame(address: "0x" + String(address, radix: 16))
            if let (image, offset) = segments.image(ofReturnAddress: address) {
                frame.image = images[image.path] ?? images.count
                images[image.path] = frame.image
                frame.offset = "0x" + String(offset, radix: 16)
            }
            frames.append(frame)
        }
        let run = RunInfo(
            processName: "crashed", processID: 42, startTime: Date(), endTime: Date(), completeness: .partial)
        var data = JournalEntry.run(run).jsonLine()
        for (path, id) in images.sorted(by: { $0.value < $1.value }) {
            let buildID = segments.images.first { $0.path == path }?.buildID
            data.append(JournalEntry.image(ReportImage(id: id, path: path, buildID: buildID)).jsonLine())
        }
        data.append(JournalEntry.stack(ReportStack(id: 1, frames: frames)).jsonLine())
        data.append(Self.lateValueFinding)
        return data
    }

    /// The journal line of a finding made on stack 1 whose fingerprint was not journaled yet.
    static let lateValueFinding = JournalEntry.finding(
        ReportFinding(
            id: 1, kind: "valueAfterTermination", severity: .error, message: "a value after finish()",
            label: "late", fingerprint: "", policy: "report", eventStack: 1)
    ).jsonLine()

    @Test func theToolNamesThemWithLLVMSymbolizer() throws {
        let environment = ProcessInfo.processInfo.environment
        try #require(
            SymbolizerLocator.onPath("llvm-symbolizer", environment: environment) != nil,
            "llvm-symbolizer must be on PATH (Tools/test.sh installs it)")
        try withTemporaryDirectory { directory in
            try Self.journalWithARawStack().write(to: directory.appendingPathComponent("crashed.journal.jsonl"))
            let merged = runTool(
                ["merge", "crashed.journal.jsonl", "-o", "named.json"],
                environment: ["PATH": environment["PATH"] ?? ""],
                in: directory.path)
            #expect(merged.code == 0, "\(merged.stderr)")
            let report = try DiagnosticsReport.load(from: directory.appendingPathComponent("named.json"))
            let finding = try #require(report.findings.first)
            let stack = try #require(report.stacks.first { $0.id == finding.eventStack })
            #expect(
                stack.frames.contains { $0.function?.contains("RawJournalStackTests.journalWithARawStack") == true })
            #expect(stack.frames.contains { $0.file?.hasSuffix("RawJournalStackTests.swift") == true })
            #expect(finding.fingerprint.count == 16)
            #expect(!merged.stderr.contains("never named"))
        }
    }

    /// The process folded the modules SwiftPM generated for its test binary like frameworks
    /// (their closure numbers change as tests are added): naming its stacks does too, or the
    /// fingerprints would differ from the engine's.
    @Test func framesAreClassifiedAsTheProcessClassifiedThem() {
        let classifier = FrameClassifier.of(process: "FeedPackageTests.xctest")
        #expect(
            classifier.category(
                module: "FeedPackageDiscoveredTests", symbol: "$s26FeedPackageDiscoveredTests4mainyyF", imagePath: nil)
                == .framework)
        #expect(classifier.category(module: "FeedPackageTests", symbol: nil, imagePath: nil) == .framework)
        #expect(classifier.category(module: "FeedTests", symbol: nil, imagePath: nil) == .user)
        #expect(FrameClassifier.generatedTestModules(processName: "Tool") == [])
    }

    /// The process named the finding's stack, then died before journaling its fingerprint
    /// (OpenCombine's `assertCrashes` children do, now and then): the tool gives it the one
    /// the engine would have, with no symbolizer needed, so the gate can match it.
    @Test func aFindingWhoseFingerprintWasNeverJournaledGetsTheEnginesOne() throws {
        let frames: [(function: String?, category: FrameCategory)] = [
            ("FeedTests.FeedTests.testLateValue() -> ()", .user), ("XCTest.XCTestCase.invokeTest() -> ()", .system),
        ]
        let run = RunInfo(
            processName: "crashed", processID: 42, startTime: Date(), endTime: Date(), completeness: .partial)
        var data = JournalEntry.run(run).jsonLine()
        data.append(
            JournalEntry.stack(
                ReportStack(
                    id: 1,
                    frames: frames.map { ReportFrame(address: "0x1000", function: $0.function, category: $0.category) })
            ).jsonLine())
        data.append(Self.lateValueFinding)
        try withTemporaryDirectory { directory in
            try data.write(to: directory.appendingPathComponent("crashed.journal.jsonl"))
            let merged = runTool(
                ["merge", "crashed.journal.jsonl", "-o", "merged.json"], environment: ["PATH": ""],
                in: directory.path)
            #expect(merged.code == 0, "\(merged.stderr)")
            let report = try DiagnosticsReport.load(from: directory.appendingPathComponent("merged.json"))
            let finding = try #require(report.findings.first)
            #expect(
                finding.fingerprint
                    == FindingFingerprint.make(kind: "valueAfterTermination", label: "late", frames: frames))
            #expect(finding.fingerprint.count == 16)
        }
    }

    @Test func withoutASymbolizerTheToolSaysTheyStayAddresses() throws {
        try withTemporaryDirectory { directory in
            try Self.journalWithARawStack().write(to: directory.appendingPathComponent("crashed.journal.jsonl"))
            let shown = runTool(["show", "crashed.journal.jsonl"], environment: ["PATH": ""], in: directory.path)
            #expect(shown.code == 0, "\(shown.stderr)")
            #expect(
                shown.stderrLines.contains(
                    "reactive-diag: note: crashed.journal.jsonl: 1 stack of the crash journal were never named, and "
                        + "llvm-symbolizer is not on PATH to name them: their frames show as addresses"),
                "\(shown.stderrLines)")
        }
    }
}
