import Foundation
import ReactiveDiagnostics

#if canImport(Glibc)
import Glibc
#endif
import ReactiveDiagnosticsTestSupport
import Testing

/// ``Configuration/settlesWhenIdle``: runs ``SettleFixtures`` in a child XCTest process with a
/// 20 s settle time.
@Suite("Settle: a leak is decided once nothing is in flight", .enabled(if: childProcessesAreSupported && isLinux))
struct SettleWhenIdleTests {
    static let fixtures = "ReactiveDiagnosticsXCTestTests.SettleFixtures"

    /// Whether this binary runs under Thread or Address Sanitizer (the child is this binary).
    static let underSanitizer: Bool = {
        #if canImport(Glibc)
        return dlsym(nil, "__tsan_init") != nil || dlsym(nil, "__asan_init") != nil
        #else
        return false
        #endif
    }()

    @Test func aLeakWithNothingInFlightIsDecidedAndWorkInFlightIsWaitedFor() async throws {
        let settle = 20.0
        let run = try await ChildProcess.runXCTest(
            Self.fixtures, environment: ["REACTIVE_DIAGNOSTICS_SETTLE_MS": String(Int(settle * 1000))])
        // The leak's own test either ends well within a second (decided once nothing is in flight)
        // or after the whole settle time (waited for): the outcome is one or the other, so half the
        // settle time tells them apart however loaded the machine is (XCTest's own time of the test,
        // not the child's, which includes its start and the fixtures that wait). Under a sanitizer
        // it waits: the sanitizer's runtime keeps a thread of its own sleeping in `nanosleep`, which
        // is work in flight for the settle loop (it cannot tell it from the test's own sleeping
        // threads).
        if !Self.underSanitizer {
            let took = try #require(Self.seconds(of: "testLeaksWithNothingInFlight", in: run.output), "\(run.output)")
            #expect(took < settle / 2, "\(run.output)")
        }
        // Two leaking tests ending together on two threads (Swift Testing's way) are both
        // decided at once (the fixture asserts it on an engine of its own).
        #expect(
            run.output.contains("SettleFixtures.testTwoLeakingTestsSettlingTogetherAreBothDecided' passed"),
            "\(run.output)")
        // Another test's timer does not hold a leak; its own does (asserted by the fixture).
        #expect(
            run.output.contains("SettleFixtures.testAnotherTestsTimerDoesNotHoldALeak' passed"), "\(run.output)")
        let report = try run.report()
        let prefix = Self.fixtures + "/"
        // Every subscription ended by work in flight is waited for: no finding but the leak's.
        #expect(report.findings.map(\.label) == ["idle-leak"], "\(run.output)")
        let leak = try #require(report.findings.first)
        #expect(leak.kind == "leakedSubscription")
        #expect(leak.test == prefix + "testLeaksWithNothingInFlight")
        let function = try #require(report.firstUserFunction(ofStack: leak.allocationStack))
        #expect(function.contains("SettleFixtures.testLeaksWithNothingInFlight()"), "\(function)")
        #expect(report.run.tests.filter(\.failed).map(\.name) == [prefix + "testLeaksWithNothingInFlight"])
    }

    /// XCTest's own time of one fixture, from its `Test Case '…' failed (1.763 seconds)` line.
    static func seconds(of test: String, in output: String) -> Double? {
        for line in output.split(separator: "\n") where line.contains(".\(test)'") && line.hasSuffix(" seconds)") {
            guard let open = line.lastIndex(of: "(") else { continue }
            let figure = line[line.index(after: open)...].dropLast(" seconds)".count)
            if let seconds = Double(figure) { return seconds }
        }
        return nil
    }
}

#if os(Linux)
private let isLinux = true
#else
private let isLinux = false
#endif
