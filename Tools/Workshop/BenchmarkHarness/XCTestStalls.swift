/// The tests of one XCTest run that waited out a lost wake-up, read from the run's output
/// (`Test Case '…' passed (0.101 seconds)`).
///
/// swift-corelibs-xctest runs an async test's task and waits for it in `XCTWaiter`, 100 ms of
/// the main run loop at a time; a stop that comes just before the run loop runs is lost and the
/// test waits out the 100 ms. A test of the long suite takes under 2 ms otherwise, so every test
/// timed at ``threshold`` or more is one.
///
/// ```swift
/// let stalls = XCTestStalls(output: "Test Case 'A.testB' passed (0.101 seconds)\n")
/// // stalls.count == 1, stalls.seconds == 0.101
/// ```
public struct XCTestStalls: Sendable, Equatable {
    /// The shortest test time, in seconds, that counts as a stall.
    public static let threshold = 0.09
    /// How many tests stalled.
    public var count = 0
    /// Their time, in seconds, as XCTest printed it.
    public var seconds = 0.0

    /// Reads every `Test Case '…' passed|failed (T seconds)` line of `output`.
    public init(output: String) {
        for line in output.split(separator: "\n") where line.hasPrefix("Test Case '") && line.hasSuffix(" seconds)") {
            guard let open = line.lastIndex(of: "("),
                let time = Double(line[line.index(after: open)...].prefix { $0 != " " }),
                time >= Self.threshold
            else { continue }
            count += 1
            seconds += time
        }
    }
}
