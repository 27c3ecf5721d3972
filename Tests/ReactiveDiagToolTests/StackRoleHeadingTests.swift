import Foundation
import ReactiveDiagTool
import ReactiveDiagnosticsReport
import Testing

/// The part a related stack plays (`details["relatedStackRole"]`, set by ConcurrencyDiagnostics:
/// where a leaked iteration's stream was created, the other task iterating) heads that stack the
/// same way in a failed test, `show`, the HTML page's view, JUnit and SARIF; without a role it is
/// the other thread's delivery.
@Suite("stack role headings")
struct StackRoleHeadingTests {
    static let loop = ReportFrame(
        address: "0x10", function: "closure #1 in App.TickerModel.start()", module: "App", category: .user,
        file: "/src/app/Sources/App/TickerModel.swift", line: 11, column: 23)
    static let creation = ReportFrame(
        address: "0x20", function: "AppTests.TickerTests.showsPrices()", module: "AppTests", category: .user,
        file: "/src/app/Tests/AppTests/TickerTests.swift", line: 8, column: 9)

    /// A leaked iteration with the stream's creation as its related stack, and a concurrent
    /// delivery whose related stack is the other thread's (no role named).
    static var report: DiagnosticsReport {
        let leak = ReportFinding(
            id: 0, kind: "leakedSubscription", severity: .error, message: "iteration of 'prices' still waiting",
            label: "prices", resourceKind: "iteration", test: "TickerTests.showsPrices()",
            fingerprint: "1111111111111111",
            policy: "fail", allocationStack: 0, relatedStack: 1,
            details: ["count": "1", "resourceKind": "iteration", ReportFinding.relatedStackRoleKey: "stream created"])
        let delivery = ReportFinding(
            id: 1, kind: "concurrentDelivery", severity: .error, message: "'feed' received two values at once",
            label: "feed", test: "TickerTests.showsPrices()", fingerprint: "2222222222222222", policy: "fail",
            eventStack: 0, relatedStack: 1, thread: ReportThread(id: 7, name: "worker", isMainQueue: false),
            otherThread: ReportThread(id: 8, name: "other", isMainQueue: false))
        return DiagnosticsReport(
            run: RunInfo(
                processName: "p", processID: 1, startTime: Date(timeIntervalSince1970: 0),
                endTime: Date(timeIntervalSince1970: 1)),
            findings: [leak, delivery],
            stacks: [ReportStack(id: 0, frames: [loop]), ReportStack(id: 1, frames: [creation])])
    }

    @Test("a failed test's message heads the related stack with its role, else as the other thread's delivery")
    func failedTestMessage() {
        let report = Self.report
        let stacks = Dictionary(uniqueKeysWithValues: report.stacks.map { ($0.id, $0) })
        let leak = FindingText.describe(report.findings[0], stack: { stacks[$0] }, imagePath: { _ in nil })
        #expect(
            leak.contains(
                "\n  allocated at:\n    closure #1 in App.TickerModel.start()\n  stream created at:\n    AppTests."),
            "\(leak)")
        let delivery = FindingText.describe(report.findings[1], stack: { stacks[$0] }, imagePath: { _ in nil })
        #expect(delivery.contains("\n  event at (thread 7 \"worker\"):\n"), "\(delivery)")
        #expect(delivery.contains("\n  other delivery at (thread 8 \"other\"):\n"), "\(delivery)")
        #expect(!delivery.contains("stream created"))
    }

    @Test("show, its JSON view, JUnit and SARIF name the role too")
    func toolOutputs() throws {
        try withTemporaryDirectory { directory in
            try ReportFixtures.write(Self.report, to: directory.appendingPathComponent("r.json"))
            let show = runTool(["show", "r.json", "--color", "never"], in: directory.path)
            #expect(show.code == 0)
            #expect(show.stdout.contains("stream created at:"), "\(show.stdout)")
            #expect(show.stdout.contains("other delivery at (thread 8 \"other\"):"), "\(show.stdout)")

            let json = runTool(["show", "r.json", "--format", "json"], in: directory.path)
            let view = try JSONDecoder().decode(ReportView.self, from: Data(json.stdout.utf8))
            let headings = view.groups.flatMap { $0.stacks.map(\.heading) }
            #expect(
                headings.contains("stream created at") && headings.contains("other delivery at (thread 8 \"other\")"),
                "\(headings)")

            let gate = runTool(
                ["gate", "r.json", "--source-root", "/src/app", "--junit", "junit.xml", "--sarif", "r.sarif"],
                in: directory.path)
            #expect(gate.code == 1)
            let junit = try String(contentsOf: directory.appendingPathComponent("junit.xml"), encoding: .utf8)
            #expect(junit.contains("stream created at:"), "\(junit)")
            let sarif = try String(contentsOf: directory.appendingPathComponent("r.sarif"), encoding: .utf8)
            #expect(sarif.contains("\"stream created at, #0: AppTests.TickerTests.showsPrices()\""), "\(sarif)")
            // The leak is placed at the loop, its allocation (the role changes no placement).
            #expect(sarif.contains("\"uri\" : \"Sources/App/TickerModel.swift\""))
        }
    }
}
