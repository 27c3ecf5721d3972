import Foundation
import ReactiveDiagnostics
import Testing

@Suite("Configuration")
struct ConfigurationTests {
    @Test func defaults() {
        let configuration = Configuration()
        #expect(configuration.isEnabled && configuration.capturesAllocationStacks)
        #expect(configuration.stackDepth == 64)
        #expect(configuration.capturesAlongFramePointers)
        #expect(configuration.reportPath == ".build/reactive-diagnostics/report-%n-%p.json")
    }

    @Test func environmentOverridesEverySetting() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("rd-suppressions-\(UUID()).txt")
        try "leak:Vendor\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let configuration = try Configuration(environment: [
            "REACTIVE_DIAGNOSTICS_ENABLED": "yes",
            "REACTIVE_DIAGNOSTICS_STACKS": "0",
            "REACTIVE_DIAGNOSTICS_EVENT_STACKS": "off",
            "REACTIVE_DIAGNOSTICS_STACK_DEPTH": "16",
            "REACTIVE_DIAGNOSTICS_FRAME_POINTERS": "no",
            "REACTIVE_DIAGNOSTICS_POLICY": "warning=fail",
            "REACTIVE_DIAGNOSTICS_SETTLE_MS": "1500",
            "REACTIVE_DIAGNOSTICS_REPORT": "/tmp/r-%p.json",
            "REACTIVE_DIAGNOSTICS_WRITE_REPORT": "false",
            "REACTIVE_DIAGNOSTICS_SUMMARY": "0",
            "REACTIVE_DIAGNOSTICS_SUPPRESSIONS": file.path,
            "REACTIVE_DIAGNOSTICS_FRAMEWORK_MODULES": "MyKit, Vendor",
            "REACTIVE_DIAGNOSTICS_LONG_ACTION_MS": "40",
            "REACTIVE_DIAGNOSTICS_MAX_FINDINGS": "500",
            "UNRELATED": "ignored",
        ])
        #expect(
            configuration.isEnabled && !configuration.capturesAllocationStacks && !configuration.capturesEventStacks)
        #expect(configuration.stackDepth == 16)
        #expect(!configuration.capturesAlongFramePointers)
        #expect(configuration.policies.policy(for: .reentrantDelivery, severity: .warning) == .fail)
        #expect(configuration.settleTime == .milliseconds(1500))
        #expect(configuration.resolvedReportPath == "/tmp/r-\(ProcessInfo.processInfo.processIdentifier).json")
        #expect(!configuration.writesReport && !configuration.printsSummary)
        #expect(configuration.suppressions.rules.map(\.description) == ["leak:Vendor"])
        #expect(configuration.frameworkModules == ["MyKit", "Vendor"])
        #expect(configuration.longActionThreshold == .milliseconds(40))
        #expect(configuration.maximumFindings == 500)
    }

    @Test(arguments: [
        (
            "REACTIVE_DIAGNOSTICS_ENABLED", "maybe",
            "REACTIVE_DIAGNOSTICS_ENABLED='maybe' is not 1/0, true/false, yes/no or on/off"
        ),
        (
            "REACTIVE_DIAGNOSTICS_STACK_DEPTH", "9999",
            "REACTIVE_DIAGNOSTICS_STACK_DEPTH='9999' is not a whole number in 1...512"
        ),
        (
            "REACTIVE_DIAGNOSTICS_SETTLE_MS", "soon",
            "REACTIVE_DIAGNOSTICS_SETTLE_MS='soon' is not a whole number in 0...600000"
        ),
        (
            "REACTIVE_DIAGNOSTICS_POLICY", "error",
            "REACTIVE_DIAGNOSTICS_POLICY: policy entry 'error' is not NAME=POLICY with POLICY one of ignore, record, fail, trap"
        ),
    ])
    func badValuesNameTheVariable(name: String, value: String, message: String) {
        #expect(throws: ConfigurationError(message)) { try Configuration(environment: [name: value]) }
    }

    @Test func aMissingSuppressionsFileIsAnError() {
        #expect(throws: ConfigurationError.self) {
            try Configuration(environment: ["REACTIVE_DIAGNOSTICS_SUPPRESSIONS": "/nonexistent/rules.txt"])
        }
    }

    @Test func disablingStacksAtRunTime() {
        let engine = makeEngine()
        #expect(engine.captureAllocationStack().isCaptured)
        engine.updateConfiguration { $0.capturesAllocationStacks = false }
        #expect(engine.captureAllocationStack() == .none)
        engine.updateConfiguration { $0.isEnabled = false }
        #expect(!engine.isEnabled)
    }
}
