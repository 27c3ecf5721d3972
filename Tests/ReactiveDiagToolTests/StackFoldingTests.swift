import Foundation
import ReactiveDiagTool
import ReactiveDiagnosticsReport
import Testing

/// How stacks are shown: user frames first-class and highlighted, other runs folded.
@Suite("stack folding")
struct StackFoldingTests {
    private func show(_ frames: [ReportFrame], dropped: Int = 0) throws -> [String] {
        let finding = ReportFinding(
            id: 1, kind: "leakedSubscription", severity: .error, message: "m", fingerprint: "f", policy: "fail",
            allocationStack: 0)
        let report = DiagnosticsReport(
            run: RunInfo(
                processName: "p", processID: 1, startTime: Date(timeIntervalSince1970: 0),
                endTime: Date(timeIntervalSince1970: 0)),
            findings: [finding], stacks: [ReportStack(id: 0, frames: frames, droppedFrames: dropped)])
        return try withTemporaryDirectory { directory in
            try ReportFixtures.write(report, to: directory.appendingPathComponent("r.json"))
            let run = runTool(["show", "r.json", "--color", "never"], in: directory.path)
            #expect(run.code == 0)
            let lines = run.stdout.split(separator: "\n").map(String.init)
            let start = try #require(lines.firstIndex { $0.hasSuffix("allocated at:") })
            return lines[(start + 1)...].map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    private func frame(
        _ function: String, _ module: String?, _ category: FrameCategory, file: String? = nil
    ) -> ReportFrame {
        ReportFrame(
            address: "0x1", function: function, module: module, category: category, file: file,
            line: file == nil ? nil : 7)
    }

    @Test("runs of framework and system frames fold into one line naming their modules")
    func folds() throws {
        let lines = try show(
            [
                frame("App.Model.bind()", "App", .user, file: "/src/App/Model.swift"),
                frame("OpenCombine.Map.receive()", "OpenCombine", .framework),
                frame("OpenCombine.Sink.receive()", "OpenCombine", .framework),
                frame("XCTest.XCTestCase.invokeTest()", "XCTest", .framework),
                frame("App.Tests.testBind()", "AppTests", .user),
                frame("Foundation.Thread.main()", "Foundation", .system),
                frame("start_thread", nil, .system),
            ], dropped: 3)
        #expect(
            lines == [
                "⋯ 3 ReactiveDiagnostics frames dropped by the engine",
                "▸ #0 App.Model.bind() at /src/App/Model.swift:7",
                "⋯ 3 framework frames (OpenCombine, XCTest)",
                "▸ #4 App.Tests.testBind()",
                "⋯ 2 system frames (Foundation)",
            ])
    }

    @Test("a single non-user frame is shown, not folded; mixed runs name every category")
    func singleAndMixed() throws {
        let lines = try show([
            frame("App.Model.bind()", "App", .user),
            frame("OpenCombine.Sink.receive()", "OpenCombine", .framework),
            frame("App.Model.load()", "App", .user),
            frame("OpenCombine.Map.receive()", "OpenCombine", .framework),
            frame("Swift.Array.forEach()", "Swift", .system),
            frame("ReactiveDiagnostics.Stage.forward()", "ReactiveDiagnostics", .diagnostics),
        ])
        #expect(
            lines == [
                "▸ #0 App.Model.bind()",
                "#1 OpenCombine.Sink.receive()",
                "▸ #2 App.Model.load()",
                "⋯ 3 framework, system and diagnostics frames (OpenCombine, Swift, ReactiveDiagnostics)",
            ])
    }

    @Test("a stack without user frames shows its framework frames and folds only the runtime")
    func noUserFrames() throws {
        let lines = try show([
            frame("CombineSchedulers.UIScheduler.schedule()", "CombineSchedulers", .framework),
            frame("Dispatch.DispatchQueue.async()", "Dispatch", .system),
            frame("_dispatch_client_callout", nil, .system),
        ])
        #expect(
            lines == [
                "#0 CombineSchedulers.UIScheduler.schedule()",
                "⋯ 2 system frames (Dispatch)",
            ])
    }
}
