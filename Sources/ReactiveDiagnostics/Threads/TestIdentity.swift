import CReactiveDiagnostics
import Synchronization

/// The test a resource or finding belongs to.
///
/// Test glue (XCTest observer, Swift Testing trait) sets the current test; the engine
/// records it with every resource and finding. Swift Testing runs tests in parallel in one
/// process, so the identity travels three ways, checked in this order:
/// 1. a thread-local set by the library around deliveries and scheduled actions, so work a
///    test's stream or scheduler does on another thread stays attributed to that test;
/// 2. the task-local ``TestIdentity/current`` that the Swift Testing trait binds;
/// 3. the process-wide serial test that XCTest (one test at a time) sets.
///
/// ```swift
/// let test = TestIdentity(name: "LoaderTests.testLoad()")
/// TestIdentity.$current.withValue(test) {
///     assert(TestIdentity.resolve() == test)
/// }
/// ```
public struct TestIdentity: Hashable, Sendable, CustomStringConvertible {
    /// The interned id; 0 means no test.
    public let rawValue: UInt32

    /// No test is known.
    public static let none = TestIdentity(rawValue: 0)

    private static let names = InternTable()
    private static let serial = Atomic<UInt32>(0)

    /// The task-local test, bound by the Swift Testing trait.
    @TaskLocal public static var current: TestIdentity?

    /// Wraps an id.
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// The identity of the test named `name` (the same name always gives the same identity).
    public init(name: String) {
        rawValue = Self.names.id(for: name)
    }

    /// The test's name, or `nil` for ``none``.
    public var name: String? {
        Self.names.name(for: rawValue)
    }

    /// Whether this identifies a test.
    public var isKnown: Bool { rawValue != 0 }

    public var description: String { name ?? "(no test)" }

    /// The test the caller is working for, or ``none``.
    public static func resolve() -> TestIdentity {
        let threadLocal = rdiag_current_test_get()
        if threadLocal != 0 {
            return TestIdentity(rawValue: threadLocal)
        }
        if let task = current {
            return task
        }
        return TestIdentity(rawValue: serial.load(ordering: .relaxed))
    }

    /// The process-wide test for serial runners (XCTest); ``none`` clears it.
    public static var serialCurrent: TestIdentity {
        get { TestIdentity(rawValue: serial.load(ordering: .relaxed)) }
        set { serial.store(newValue.rawValue, ordering: .relaxed) }
    }

    /// Runs `body` with `test` as the calling thread's test, restoring the previous one.
    ///
    /// The library wraps deliveries and scheduled actions in this so that resources created
    /// on other threads are attributed to the test that started the work.
    @inline(__always)
    public static func withThreadTest<Result, Failure: Error>(
        _ test: TestIdentity, _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
        guard test.isKnown else { return try body() }
        let previous = rdiag_current_test_get()
        if previous == test.rawValue {
            return try body()
        }
        rdiag_current_test_set(test.rawValue)
        defer { rdiag_current_test_set(previous) }
        return try body()
    }
}

extension TestIdentity {
    /// Makes `test` the calling thread's test; returns the previous raw id for ``leaveThreadTest(_:)``.
    @inline(__always)
    public static func enterThreadTest(_ test: TestIdentity) -> UInt32 {
        let previous = rdiag_current_test_get()
        rdiag_current_test_set(test.rawValue)
        return previous
    }

    /// Restores the thread's test saved by ``enterThreadTest(_:)``.
    @inline(__always)
    public static func leaveThreadTest(_ previous: UInt32) {
        rdiag_current_test_set(previous)
    }
}
