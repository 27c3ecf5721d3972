import CombineDiagnostics
import Foundation
import OpenCombineShim
import ReactiveDiagnostics
import ReactiveDiagnosticsXCTest
import XCTest

/// A test function's own cancellables under global instrumentation: released at once (a
/// premature cancellation) or kept to the end of a scope (a test that checks that nothing
/// arrives). Run by ``ScopeTests`` in a child process.
final class ScopeFixtures: XCTestCase {
    override class func setUp() {
        super.setUp()
        if Fixture.isActive {
            ReactiveDiagnosticsXCTest.install()
            CombineInstrumentation.start()
        }
    }

    override func setUpWithError() throws {
        try XCTSkipUnless(Fixture.isActive, Fixture.skipReason)
    }

    /// Kept until the end of the test, which checks that no value arrives: no finding.
    func testKeepsItsSinkToTheEnd() {
        let subject = PassthroughSubject<Int, Never>()
        var received: [Int] = []
        let cancellable = subject.sink { received.append($0) }
        XCTAssertEqual(received, [])
        XCTAssertNotNil(cancellable)
    }

    /// Kept for a `do` block only: no finding either.
    func testKeepsItsSinkForABlock() {
        let subject = PassthroughSubject<Int, Never>()
        do {
            let cancellable = subject.sink { _ in XCTFail("nothing is sent") }
            withExtendedLifetime(cancellable) {}
        }
        subject.send(1)
    }

    /// Released on the line that subscribed: a premature cancellation.
    func testDropsItsSinkAtOnce() {
        let subject = PassthroughSubject<Int, Never>()
        _ = subject.sink { _ in }  // SITE: scope-premature
        subject.send(1)
    }
}
