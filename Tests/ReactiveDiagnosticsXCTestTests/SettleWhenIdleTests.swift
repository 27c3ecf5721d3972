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
        let clock = ContinuousClock()
        let start = clock.now
        let run = try await ChildProcess.runXCTest(
            Self.fixtures, environment: ["REACTIVE_DIAGNOSTICS_SETTLE_MS": "20000"])
        let took = clock.now - start
        // Waiting the settle time for the leak alone would take 20 s. Under a sanitizer it does:
        // the sanitizer's runtime keeps a thread of its own sleeping in `nanosleep`, which is work
        // in flight for the settle loop (it cannot tell it from the test's own sleeping threads).
        if !Self.underSanitizer {
            #expect(took < .seconds(15), "\(took)\n\(run.output)")
        }
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
}

#if os(Linux)
private let isLinux = true
#else
private let isLinux = false
#endif
