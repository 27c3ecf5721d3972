/// One reference the walker found in an object: what it points at, whether it keeps it
/// alive, and the way from the holding object to it.
struct HeapReference {
    /// How strongly the reference holds its object.
    enum Strength: Equatable {
        /// Keeps the object alive.
        case strong
        /// `weak`: does not.
        case weak
        /// `unowned` or `unowned(unsafe)`: does not either.
        case unowned
        /// A stored property declared `weak`, `unowned` or `unowned(unsafe)`.
        case notStrong
        /// A word found by scanning memory the walker could not type: an object pointer, but
        /// whether it is a strong reference cannot be told.
        case unknown
    }

    /// The object referred to; 0 for a weak reference (a side table the walker does not follow).
    var target: UInt
    var strength: Strength
    var path: [PathStep]
    /// The declared type, when it is all that is known (weak and unowned captures).
    var declaredType: String?
}

/// One step from a holding object toward a reference.
enum PathStep: Equatable {
    /// A stored property, with its type's metadata.
    case field(name: String, type: UInt)
    /// An element of an array or set.
    case element
    /// A dictionary key or value.
    case key
    case value
    /// An enum case's payload (`Optional.some` included).
    case payload(String)
    /// The value inside an existential (`any P`).
    case existential
    /// The value inside a box (a captured `var`, an `indirect` case).
    case box
    /// A Swift closure (its function pointer): what follows is in its context.
    case closure(function: UInt)
    /// Capture `index` (of `of`) of the closure whose context the walk is in.
    case capture(index: Int, of: Int, type: UInt)
    /// A word of memory the walker could not type.
    case untypedWord(offset: Int)
}
