package import XCTest

/// Whether a test case instance keeps anything in its own stored properties that its
/// `tearDown()` could release: a `cancellables` set, a view model, a scheduler.
///
/// `install()`'s check is a teardown block, which XCTest runs **before** `tearDown()`; XCTest
/// offers no later moment at which a test can still fail. A test case that keeps nothing
/// in its properties cannot have a resource released by `tearDown()`, so its check is final
/// at the teardown block. One that does keep something has its lifetime check deferred to
/// after `tearDown()` (see ``TestCaseDiagnostics/finishDeferred(_:)``), where a subscription
/// cleared in `tearDown()` is, correctly, no leak.
///
/// The walk reads the properties the test's classes add to `XCTestCase` with `Mirror`,
/// never XCTest's own. It errs towards "keeps something": an object, a closure, a non-empty
/// collection of either, or a value nested too deep to look into.
package enum TestCaseReferences {
    /// How deep nested values (structs, tuples, enums, collections) are looked into.
    package static let depthLimit = 4
    /// How many elements of a collection are looked at.
    package static let elementLimit = 64

    package static func keepsReferences(_ testCase: XCTestCase) -> Bool {
        var mirror: Mirror? = Mirror(reflecting: testCase)
        while let current = mirror, current.subjectType != XCTestCase.self {
            if current.children.contains(where: { keepsReferences($0.value, depth: 0) }) {
                return true
            }
            mirror = current.superclassMirror
        }
        return false
    }

    package static func keepsReferences(_ value: Any, depth: Int) -> Bool {
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .class?:
            return true
        case .optional?:
            return mirror.children.first.map { keepsReferences($0.value, depth: depth) } ?? false
        case .collection?, .set?, .dictionary?, .struct?, .tuple?, .enum?:
            guard depth < depthLimit else { return !mirror.children.isEmpty }
            return mirror.children.prefix(elementLimit).contains { keepsReferences($0.value, depth: depth + 1) }
        default:
            // Functions capture whatever they like; plain values (numbers, strings) hold nothing.
            return mirror.children.isEmpty ? isFunction(value) : true
        }
    }

    private static func isFunction(_ value: Any) -> Bool {
        String(reflecting: type(of: value)).contains(" -> ")
    }
}
