/// Where work is expected to run: the main queue, off it, or anywhere a predicate says.
///
/// ```swift
/// let contract = StreamContract(delivery: .mainQueue)           // UI bindings
/// let probe = engine.makeSchedulerProbe(label: "io", expectation: .offMainQueue)
/// let custom = ThreadExpectation.custom("database queue") { DispatchQueue.getSpecific(key: dbKey) != nil }
/// ```
public struct ThreadExpectation: Sendable, CustomStringConvertible {
    private enum Rule: Sendable {
        case mainQueue
        case offMainQueue
        case custom(@Sendable () -> Bool)
    }

    /// The rule and its description, shared: copying an expectation (or a contract holding
    /// one, once per subscription) is one reference count, not a string's and a closure's.
    private final class Storage: Sendable {
        let rule: Rule
        let description: String

        init(rule: Rule, description: String) {
            self.rule = rule
            self.description = description
        }
    }

    private let storage: Storage

    private var rule: Rule { storage.rule }

    /// A short description used in findings, for example `main queue`.
    public var description: String { storage.description }

    /// Work must run on the main queue: in blocks on `DispatchQueue.main`, or on the process's
    /// initial thread (where XCTest runs test bodies on Linux).
    public static let mainQueue = ThreadExpectation(rule: .mainQueue, description: "main queue")

    /// Work must not run on the main queue.
    public static let offMainQueue = ThreadExpectation(rule: .offMainQueue, description: "off the main queue")

    /// Work must run where `isSatisfied` returns `true`; `name` describes the place.
    ///
    /// The predicate runs on the delivering thread, outside every lock of the library.
    public static func custom(_ name: String, _ isSatisfied: @escaping @Sendable () -> Bool) -> ThreadExpectation {
        ThreadExpectation(rule: .custom(isSatisfied), description: name)
    }

    private init(rule: Rule, description: String) {
        storage = Storage(rule: rule, description: description)
    }

    /// Whether the calling thread satisfies the expectation.
    public func isSatisfied() -> Bool {
        switch rule {
        case .mainQueue: return MainQueue.isCurrent
        case .offMainQueue: return !MainQueue.isCurrent
        case .custom(let predicate): return predicate()
        }
    }

    /// `true` for ``mainQueue``, `false` for ``offMainQueue``, `nil` for a custom expectation.
    var mainQueueRule: Bool? {
        switch rule {
        case .mainQueue: return true
        case .offMainQueue: return false
        case .custom: return nil
        }
    }
}
