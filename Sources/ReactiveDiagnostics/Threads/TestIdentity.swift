import CReactiveDiagnostics

/// The test a resource or finding belongs to.
///
/// Test glue (XCTest observer, Swift Testing trait) sets the current test; the engine
/// records it with every resource and finding. Swift Testing runs tests in parallel in one
/// process, so the identity travels three ways, checked in this order:
/// 1. a thread-local set by the library around deliveries and scheduled actions, so work a
///    test's stream or scheduler does on another thread stays attributed to that test;
/// 2. the task-local ``TestIdentity/current`` that the Swift Testing trait binds;
/// 3. the engine's serial test, which XCTest (one test at a time) sets with
///    ``DiagnosticsEngine/beginTest(named:serial:)``.
///
/// The first two are the ``contextual`` identity; ``DiagnosticsEngine/currentTest()`` adds the
/// third, and is what the engine and the adapters record.
///
/// ```swift
/// let test = TestIdentity(name: "LoaderTests.testLoad()")
/// TestIdentity.$current.withValue(test) {
///     assert(TestIdentity.contextual == test)
/// }
/// ```
public struct TestIdentity: Hashable, Sendable, CustomStringConvertible {
    /// The interned id; 0 means no test.
    public let rawValue: UInt32

    /// No test is known.
    public static let none = TestIdentity(rawValue: 0)

    private static let names = InternTable()

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

    /// The test's ``name``, or `(no test)` for ``none``.
    public var description: String { name ?? "(no test)" }

    /// The test the calling thread or task is working for (the thread-local test, else the
    /// task-local ``current``), or ``none``. An engine's serial test is not consulted: ask the
    /// engine, ``DiagnosticsEngine/currentTest()``, for that.
    public static var contextual: TestIdentity {
        let threadLocal = rdiag_current_test_get()
        if threadLocal != 0 {
            return TestIdentity(rawValue: threadLocal)
        }
        return current ?? .none
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
