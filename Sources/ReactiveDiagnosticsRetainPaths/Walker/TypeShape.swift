/// What the walker knows about how a type stores references, read once per type metadata.
struct TypeShape {
    /// How a value of the type holds heap objects.
    enum Layout {
        /// Holds no reference the walker follows: plain data, strings, metatypes, thin
        /// functions, raw pointers.
        case noReferences
        /// One strong reference to a heap object (a class instance, `Builtin.NativeObject`).
        case strongReference
        /// A Swift closure: a function pointer, then its context (a heap object or null).
        case thickFunction
        /// Stored properties (a struct) or elements (a tuple).
        case fields([TypeField])
        /// `Optional<Wrapped>`.
        case optional(wrapped: UInt)
        /// An enum with payloads: the cases with a payload, in tag order.
        case enumeration(payloads: [EnumPayload])
        /// `any P` where `P` is class-bound: an object, then witness tables.
        case classExistential
        /// `any P` otherwise: a three-word buffer, the dynamic type, then witness tables.
        case opaqueExistential
        /// `[Element]` and `ContiguousArray<Element>`.
        case array(element: UInt)
        /// `Set<Element>`.
        case set(element: UInt)
        /// `Dictionary<Key, Value>`.
        case dictionary(key: UInt, value: UInt)
        /// Not understood: the walk says so and goes no deeper.
        case unknown(String)
    }

    let metadata: UInt
    let kind: MetadataKind
    let size: Int
    let alignmentMask: Int
    let flags: UInt32
    let layout: Layout

    /// Whether values are stored inline in an existential's three-word buffer.
    var isInline: Bool { flags & RuntimeLayout.flagIsNonInline == 0 }
    /// Whether the type holds no reference counted pointer at all (plain old data).
    var isPOD: Bool { flags & RuntimeLayout.flagIsNonPOD == 0 }

    /// Whether a value is exactly one strong reference to a heap object (a class instance,
    /// a collection's storage, `AnyObject`): the layout the compiler shares box metadata for.
    var isSingleReference: Bool {
        guard size == RuntimeLayout.word, !isPOD else { return false }
        switch layout {
        case .strongReference, .array, .set, .dictionary, .classExistential:
            return true
        default:
            return false
        }
    }
}

/// A stored property or tuple element.
struct TypeField {
    var name: String
    var offset: Int
    var type: UInt
    /// `false` for `weak`, `unowned` and `unowned(unsafe)` storage.
    var isStrong: Bool
}

/// An enum case with a payload.
struct EnumPayload {
    var name: String
    /// The payload's type, when it could be resolved.
    var type: UInt?
    /// An `indirect` case: the payload is in a box.
    var isIndirect: Bool
}
