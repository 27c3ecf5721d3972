// The blocks of Docs/GettingStarted-XCTest.md, verbatim (see this folder's README.md).

import OpenCombineShim
import ReactiveDiagnosticsXCTest
import XCTest

/// Docs/GettingStarted-XCTest.md's snippets.
enum XCTestGuide {}

// "The one line"
extension XCTestGuide {
    enum Install {
        final class FeedViewModelTests: XCTestCase {
            override class func setUp() {
                super.setUp()
                ReactiveDiagnosticsXCTest.install()
            }
        }
    }

    enum BaseClass {
        final class FeedViewModelTests: DiagnosedTestCase { /* … */ }
    }
}

// "Clear your properties in tearDown()"
extension XCTestGuide {
    final class SearchViewModelTests: DiagnosedTestCase {
        var cancellables: Set<AnyCancellable> = []

        override func tearDown() {
            cancellables = []        // ended before the check: not a leak
            super.tearDown()
        }
    }
}

// "A first failing leak" and "Per test"
extension XCTestGuide {
    final class InstallFixtures: DiagnosedTestCase {
        func testLeaksASubscription() {
            let subscription = DiagnosticsEngine.shared.track(.subscription, label: "install-leak")
            keep(subscription)    // never untracked: alive after the test, a leak
        }

        func testCancelRace() {
            diagnosticOptions.allowedKinds.insert(.valueAfterCancel)   // tolerated in this test
            diagnosticOptions.settleTime = .seconds(2)                 // slow teardown in this test
            // …
        }
    }
}

// "Suppressions"
extension XCTestGuide {
    static func installWithSuppressions() {
        ReactiveDiagnosticsXCTest.install(
            suppressions: Suppressions(rules: [.init(type: "leakedSubscription", pattern: "VendorSDK.")]))
    }
}
