import Foundation

/// Why a leaked subscription is still alive, found by walking the references it holds at the
/// test's checkpoint: the retain cycle it belongs to (owner, property, capturing closure and
/// its line), or, when there is none, what it holds of the user's.
///
/// ```swift
/// if let path = finding.retainPath, path.verdict == .cycle, let owner = path.cycle.first {
///     print("held by a cycle through \(owner.type)")
///     print(path.textLines().joined(separator: "\n"))
/// }
/// ```
public struct ReportRetainPath: Codable, Sendable, Hashable {
    /// What the walk concluded.
    public enum Verdict: String, Codable, Sendable, Hashable, CaseIterable {
        /// A loop of strong references through the user's code keeps the subscription alive.
        case cycle
        /// Nothing the subscription holds leads back to it: something else holds it.
        case notACycle
        /// Nothing outside holds it: the subscription and objects it holds hold each other (a
        /// subscriber keeping its subscription), and nothing else in memory holds any of them.
        /// It stays until it is cancelled or completes, and nothing can reach it to cancel it.
        /// ``ReportRetainPath/cycle`` lists the loop, from the subscription round to itself.
        case heldOnlyByItself
        /// The walk could not tell (a limit, or memory it could not read).
        case unknown
    }

    /// What the walk concluded.
    public var verdict: Verdict
    /// For a cycle: its objects, starting at its owner (the first of the user's objects on
    /// it); each step says how its object holds the next, and the last one's holds the first.
    /// For ``Verdict/heldOnlyByItself``: the loop that holds the subscription, the same way.
    public var cycle: [ReportRetainStep]
    /// What the subscription holds of the user's: closures' captures (strong or not) and the
    /// user's objects, each with the way to it from the subscription.
    public var holds: [ReportRetainHold]
    /// What holds the subscription from outside, when it was found: a global or static
    /// variable's name (`NewsAppTests.keeper`).
    public var holder: String?
    /// From that holder down to the subscription: the variable (its declared type) and the
    /// objects between, each with how it holds the next.
    public var heldBy: [ReportRetainStep]
    /// What the walk met but could not read, and the limit that stopped it, if one did.
    public var notes: [String]
    /// Objects the walk read.
    public var objectsVisited: Int
    /// How long the walk took, in milliseconds. The leaks of one test that are in no cycle
    /// share their scans of memory for holders, and each counts an even share of them.
    public var milliseconds: Double

    /// Creates a retain path.
    public init(
        verdict: Verdict, cycle: [ReportRetainStep] = [], holds: [ReportRetainHold] = [], holder: String? = nil,
        heldBy: [ReportRetainStep] = [], notes: [String] = [], objectsVisited: Int = 0, milliseconds: Double = 0
    ) {
        self.verdict = verdict
        self.cycle = cycle
        self.holds = holds
        self.holder = holder
        self.heldBy = heldBy
        self.notes = notes
        self.objectsVisited = objectsVisited
        self.milliseconds = milliseconds
    }
}

/// One object of a retain cycle and how it holds the next one.
///
/// ```swift
/// let owner = ReportRetainStep(
///     type: "FeedViewModel", module: "NewsApp", category: .user,
///     links: [ReportRetainLink(kind: .field, name: "cancellables", type: "Set<AnyCancellable>")])
/// ```
public struct ReportRetainStep: Codable, Sendable, Hashable {
    /// The object's type as Swift prints it, without its module (`Sink<Array<String>, Never>`).
    public var type: String
    /// The module the type belongs to.
    public var module: String?
    /// Whose type it is: the user's, a framework's or the system's.
    public var category: FrameCategory
    /// Whether this is the subscription's own object (its subscriber, or the stage that
    /// checks it).
    public var isSubscription: Bool
    /// The way from this object to the next, outermost first (a property, then a closure it
    /// holds, then that closure's capture…).
    public var links: [ReportRetainLink]

    /// Creates a step.
    public init(
        type: String, module: String? = nil, category: FrameCategory, isSubscription: Bool = false,
        links: [ReportRetainLink] = []
    ) {
        self.type = type
        self.module = module
        self.category = category
        self.isSubscription = isSubscription
        self.links = links
    }
}

/// One hop inside an object on the way to a reference it holds.
///
/// ```swift
/// let capture = ReportRetainLink(
///     kind: .closure, name: "self",
///     closure: ReportClosure(function: "closure #2 in FeedViewModel.refresh()", file: "FeedViewModel.swift",
///                            line: 32, category: .user),
///     strength: .strong)
/// ```
public struct ReportRetainLink: Codable, Sendable, Hashable {
    /// What kind of hop.
    public enum Kind: String, Codable, Sendable, Hashable, CaseIterable {
        /// A stored property (`name`, declared `type`).
        case field
        /// An element of an array or set.
        case element
        /// A dictionary key.
        case key
        /// A dictionary value.
        case value
        /// An enum case's payload (`name` is the case).
        case payload
        /// The value inside an existential (`any P`).
        case existential
        /// The value inside a box (a captured `var`, an `indirect` case).
        case box
        /// A closure (`closure` says which): what follows is in its context.
        case closure
        /// A capture of that closure (`name` when the debug information says it).
        case capture
        /// A word of memory whose type could not be read.
        case untyped
    }

    /// What kind of hop.
    public var kind: Kind
    /// The property, case or captured variable's name.
    public var name: String?
    /// The declared type, as Swift prints it.
    public var type: String?
    /// For a closure: which one, and where it is written.
    public var closure: ReportClosure?
    /// For the last hop: how strongly it holds what it refers to.
    public var strength: ReportReferenceStrength?

    /// Creates a link.
    public init(
        kind: Kind, name: String? = nil, type: String? = nil, closure: ReportClosure? = nil,
        strength: ReportReferenceStrength? = nil
    ) {
        self.kind = kind
        self.name = name
        self.type = type
        self.closure = closure
        self.strength = strength
    }
}

/// How strongly a reference holds its object.
///
/// ```swift
/// let keepsAlive = path.holds.filter { $0.strength == .strong }
/// ```
public enum ReportReferenceStrength: String, Codable, Sendable, Hashable, CaseIterable {
    /// Keeps it alive.
    case strong
    /// A `weak` capture: does not.
    case weak
    /// An `unowned` capture: does not either.
    case unowned
    /// A property declared `weak`, `unowned` or `unowned(unsafe)`.
    case notStrong
    /// Found in memory whose type could not be read: an object pointer, strength unknown.
    case unknown
}

/// A closure on a retain path.
///
/// ```swift
/// if let closure = link.closure, let line = closure.line { print("\(closure.file ?? "?"):\(line)") }
/// ```
public struct ReportClosure: Codable, Sendable, Hashable {
    /// The closure's function, demangled (`closure #2 in FeedViewModel.refresh()`).
    public var function: String
    /// Where it is written, when the debug information says.
    public var file: String?
    /// The line of its opening brace.
    public var line: Int?
    /// The column, when known.
    public var column: Int?
    /// Whose code it is.
    public var category: FrameCategory
    /// The text of ``line`` in ``file`` when the report was written, without its leading and
    /// trailing white space (`receiveValue: { self.headlines = $0 }`): what `reactive-diag fix`
    /// compares with the file it edits, to refuse a line that changed since. `nil` when the
    /// file could not be read, and in reports written before it was recorded.
    public var sourceText: String?

    /// Creates a closure record.
    public init(
        function: String, file: String? = nil, line: Int? = nil, column: Int? = nil, category: FrameCategory,
        sourceText: String? = nil
    ) {
        self.function = function
        self.file = file
        self.line = line
        self.column = column
        self.category = category
        self.sourceText = sourceText
    }
}

/// Something a subscription holds of the user's.
///
/// ```swift
/// for hold in path.holds where hold.strength == .strong { print(hold.from, "holds", hold.type) }
/// ```
public struct ReportRetainHold: Codable, Sendable, Hashable {
    /// The type of the subscription's object that holds it (the subscriber, or a framework
    /// object it holds).
    public var from: String
    /// The way from that object to it (a property, a closure, a capture…).
    public var links: [ReportRetainLink]
    /// Its type (the object's, or the declared type of a `weak` or `unowned` capture).
    public var type: String
    /// How strongly it is held.
    public var strength: ReportReferenceStrength

    /// Creates a hold.
    public init(from: String, links: [ReportRetainLink], type: String, strength: ReportReferenceStrength) {
        self.from = from
        self.links = links
        self.type = type
        self.strength = strength
    }
}
