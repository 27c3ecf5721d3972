// The blocks of Docs/GettingStarted-SwiftTesting.md, verbatim (see this folder's README.md).

import ReactiveDiagnosticsTesting
import Testing

/// Docs/GettingStarted-SwiftTesting.md's snippets.
enum SwiftTestingGuide {}

// "The one line": at file scope, as in the guide (no other guide's FeedViewModelTests is).
@Suite(.diagnosed)                 // every test of the suite, each test case on its own
struct FeedViewModelTests {
    @Test func refreshLoadsItems() async { /* … */ }
}

@Test(.diagnosed)                  // or a single test
func searchDebounces() async { /* … */ }

// "A first failing leak"
extension SwiftTestingGuide {
    @Suite(.diagnosed)
    struct TraitFixtures {
        @Test func leaks() {
            let subscription = DiagnosticsEngine.shared.track(.subscription, label: "trait-leak")
            keep(subscription)    // never untracked: alive after the test, a leak
        }
    }
}

// "Opting out"
extension SwiftTestingGuide {
    struct PerTest {
        @Test(.diagnosed(allowing: [.valueAfterCancel], settle: .seconds(2)))
        func cancelWhileLoading() async { /* … */ }
    }

    @Suite(.diagnosed(suppressing: Suppressions(rules: [.init(type: "leak", pattern: "^vendor-ads")])))
    struct AdsTests { /* … */ }
}
