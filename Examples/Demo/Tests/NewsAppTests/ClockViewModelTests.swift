import CombineDiagnostics
import Dispatch
import Foundation
import NewsApp
import ReactiveDiagnosticsXCTest
import XCTest

/// XCTest, with a diagnostic scheduler injected where the app takes its scheduler.
final class ClockViewModelTests: DiagnosedTestCase {
    func testTicksWhileShown() {
        let scheduler = DispatchQueue(label: "clock").diagnosed("clock")
        let clock = ClockViewModel(scheduler: scheduler, interval: .milliseconds(10))
        clock.start()
        let deadline = Date().addingTimeInterval(5)
        while clock.ticks < 2 && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        clock.stop()
        XCTAssertGreaterThanOrEqual(clock.ticks, 2)
    }
}
