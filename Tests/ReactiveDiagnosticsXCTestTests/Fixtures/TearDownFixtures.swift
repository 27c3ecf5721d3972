import CombineDiagnostics
import Foundation
import OpenCombineShim
import ReactiveDiagnostics
import ReactiveDiagnosticsXCTest
import XCTest

/// `install()` with real Combine code kept in a test case's properties, the XCTest idiom:
/// `cancellables` filled by the tests and emptied in `tearDown()`, which XCTest runs after
/// `install()`'s teardown block. Run by ``InstallTests`` in a child process.
final class TearDownFixtures: XCTestCase {
    static let file = #filePath

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

    var cancellables = Set<AnyCancellable>()
    let subject = PassthroughSubject<Int, Never>()

    override func tearDown() {
        cancellables = []
        super.tearDown()
    }

    /// Kept in `cancellables`, ended by `tearDown()`: no leak.
    func testStoresItsSinkInCancellables() {
        var received: [Int] = []
        subject.sink { received.append($0) }.store(in: &cancellables)
        subject.send(1)
        XCTAssertEqual(received, [1])
    }

    /// Kept somewhere `tearDown()` does not clear: a leak, found after `tearDown()`.
    func testKeepsASinkBeyondTearDown() {
        Leaked.keep(subject.sink { _ in })  // SITE: teardown-leak
    }
}

/// A test case that keeps nothing in its properties: its check stays final at the teardown
/// block, and a leak fails the test.
final class NoPropertyFixtures: XCTestCase {
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

    func testLeaksASink() {
        let subject = PassthroughSubject<Int, Never>()
        Leaked.keep(subject.sink { _ in })  // SITE: no-property-leak
    }
}

/// Cancellables kept alive to the end of the process.
enum Leaked {
    private static let lock = NSLock()
    // Guarded by `lock`.
    nonisolated(unsafe) private static var cancellables: [AnyCancellable] = []

    static func keep(_ cancellable: AnyCancellable) {
        lock.withLock { cancellables.append(cancellable) }
    }
}
