import Dispatch
import Foundation
@_spi(Integration) import ReactiveDiagnostics
import ReactiveDiagnosticsTestSupport
import Testing

@Suite("Report")
struct ReportTests {
    /// An engine holding one finding of several kinds, a leak, a live resource and a scheduler.
    func populatedEngine() -> DiagnosticsEngine {
        let engine = makeEngine()
        let checkpoint = engine.beginTest(named: "ReportTests.populated", serial: false)
        TestIdentity.$current.withValue(checkpoint.test) {
            let monitor = engine.makeStreamMonitor(label: DiagnosticLabel("feed <b>"))
            monitor.receivedSubscription()
            monitor.requested(.max(1))
            monitor.didDeliverValue(monitor.willDeliverValue())
            monitor.didDeliverValue(monitor.willDeliverValue())
            monitor.didTerminate(monitor.willTerminate(failure: nil))
            monitor.didDeliverValue(monitor.willDeliverValue())
            let probe = engine.makeSchedulerProbe(label: "io")
            let group = DispatchGroup()
            for _ in 0..<5 {
                let action = probe.willSchedule()
                DispatchQueue.global().async(group: group) { probe.didRun(action, probe.willRun(action)) }
            }
            group.wait()
            _ = probe.willSchedule(repeating: true)
        }
        _ = engine.finishTest(checkpoint)
        return engine
    }

    @Test func roundTripsThroughJSON() throws {
        let report = populatedEngine().makeReport()
        let decoded = try DiagnosticsReport.decode(try report.encoded(), source: "memory")
        // Field by field, so a failure names the part that did not survive.
        #expect(decoded.run == report.run)
        #expect(decoded.findings == report.findings)
        #expect(decoded.ledger == report.ledger)
        #expect(decoded.schedulers == report.schedulers)
        #expect(decoded.stacks == report.stacks)
        #expect(decoded.images == report.images)
        #expect(decoded == report)
        #expect(report.validationProblem() == nil)
    }

    @Test func containsFindingsLedgerSchedulersAndSymbolizedStacks() throws {
        let report = populatedEngine().makeReport()
        #expect(report.schemaVersion == DiagnosticsReport.currentSchemaVersion)
        #expect(Set(report.findings.map(\.kind)) == ["demandExceeded", "valueAfterTermination", "uncancelledTimer"])
        #expect(report.findings.allSatisfy { $0.test == "ReportTests.populated" && $0.fingerprint.count == 16 })
        #expect(report.ledger.kinds.contains { $0.kind == "timer" && $0.live == 1 })
        #expect(report.ledger.liveAtEnd.map(\.kind) == ["timer"])
        #expect(report.schedulers.first?.executed == 5)
        #expect(report.schedulers.first?.latency.buckets.isEmpty == false)
        let stack = try #require(report.stacks.first { $0.id == report.findings[0].allocationStack })
        #expect(stack.frames.first?.function?.contains("ReportTests.populatedEngine") == true)
        #expect(stack.frames.first?.category == .user)
        #expect(stack.droppedFrames > 0)
        #expect(report.images.allSatisfy { $0.path.hasPrefix("/") })
        #expect(report.run.completeness == .final && report.run.processID == ProcessInfo.processInfo.processIdentifier)
        #expect(report.run.toolchain.hasPrefix("Swift 6"))
        #expect(report.run.tests.map(\.name) == ["ReportTests.populated"])
    }

    @Test func validatesAgainstTheJSONSchema() throws {
        let schemaURL = packageRoot().appendingPathComponent("Docs/report.schema.json")
        let validator = try JSONSchemaValidator(schema: Data(contentsOf: schemaURL))
        let data = try populatedEngine().makeReport().encoded()
        let errors = validator.validate(try JSONSerialization.jsonObject(with: data))
        #expect(errors.isEmpty, "\(errors.prefix(5))")
        // A broken report must fail, or the validator proves nothing.
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        object["schemaVersion"] = DiagnosticsReport.currentSchemaVersion + 1
        object["surprise"] = true
        #expect(validator.validate(object).count == 2)
    }

    @Test func validatesWithPythonJSONSchemaWhenAvailable() async throws {
        // The full draft 2020-12 validator, when the machine has it (CI images do).
        let probe = try await ProcessRunner.run("/usr/bin/env", arguments: ["python3", "-c", "import jsonschema"])
        guard probe.status == 0 else {
            FileHandle.standardError.write(Data("skipping python jsonschema validation: module not installed\n".utf8))
            return
        }
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("report.json")
        try populatedEngine().makeReport().encoded().write(to: file)
        let schema = packageRoot().appendingPathComponent("Docs/report.schema.json").path
        let check = try await ProcessRunner.run(
            "/usr/bin/env",
            arguments: [
                "python3", "-c",
                """
                import json, sys, jsonschema
                schema = json.load(open(sys.argv[1])); report = json.load(open(sys.argv[2]))
                jsonschema.Draft202012Validator.check_schema(schema)
                jsonschema.Draft202012Validator(schema).validate(report)
                """, schema, file.path,
            ])
        #expect(check.status == 0, "\(check.standardError)")
    }

    @Test func writesAtomicallyAndSummarizesOnStandardError() throws {
        let engine = populatedEngine()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rd-write-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("nested/report.json").path
        let url = try engine.writeReport(to: path)
        let report = try DiagnosticsReport.load(from: url)
        #expect(report.findings.count == engine.findingCount)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
        #expect(leftovers == ["report.json"], "no temporary file is left behind")
        // Writing again replaces the file in one step.
        _ = try engine.writeReport(to: path)
        #expect(try DiagnosticsReport.load(from: url).findings.count == report.findings.count)
        let summary = ReportSummary.text(for: report, path: path)
        #expect(summary.hasPrefix("ReactiveDiagnostics: 3 findings (3 errors) in 1 test; 1 resource alive at the end"))
        #expect(summary.contains("report: \(path)"))
    }

    @Test func defaultPathIsUniquePerProcess() {
        let path = Configuration().resolvedReportPath
        #expect(path.hasPrefix(".build/reactive-diagnostics/report-"))
        #expect(path.hasSuffix("-\(ProcessInfo.processInfo.processIdentifier).json"))
    }
}
