/// The kind word at the start of Swift type metadata (`MetadataKind` in the runtime's ABI).
/// Class metadata has kind 0 on platforms without Objective-C interoperability and an isa
/// pointer (a value above the last enumerated kind) where it has one.
enum MetadataKind: Equatable, Sendable {
    case `class`
    case `struct`
    case `enum`
    case optional
    case foreignClass
    case opaque
    case tuple
    case function
    case existential
    case metatype
    case existentialMetatype
    case extendedExistential
    /// A closure context or a fixed-layout box (`HeapLocalVariable`).
    case heapLocalVariable
    /// A box allocated by `swift_allocBox` (`HeapGenericLocalVariable`).
    case heapGenericLocalVariable
    case errorObject
    case task
    case job
    case other(UInt)

    /// The largest value of an enumerated kind; larger words are isa pointers.
    static let lastEnumerated: UInt = 0x7FF

    init(word: UInt) {
        switch word {
        case 0: self = .class
        case 0x200: self = .struct
        case 0x201: self = .enum
        case 0x202: self = .optional
        case 0x203: self = .foreignClass
        case 0x300: self = .opaque
        case 0x301: self = .tuple
        case 0x302: self = .function
        case 0x303: self = .existential
        case 0x304: self = .metatype
        case 0x306: self = .existentialMetatype
        case 0x307: self = .extendedExistential
        case 0x400: self = .heapLocalVariable
        case 0x500: self = .heapGenericLocalVariable
        case 0x501: self = .errorObject
        case 0x502: self = .task
        case 0x503: self = .job
        case let word where word > Self.lastEnumerated: self = .class
        default: self = .other(word)
        }
    }
}

/// Offsets and flags of the runtime's ABI the walker reads (64-bit layouts; the walker is
/// off on 32-bit platforms).
enum RuntimeLayout {
    static let word = MemoryLayout<UInt>.size
    /// `HeapObject`: metadata pointer, then reference counts.
    static let heapObjectSize = 16

    // Value witness table (pointed to by the word before the metadata).
    static let witnessSize = 8 * word
    static let witnessFlags = 10 * word
    static let witnessGetEnumTag = 11 * word
    static let witnessProjectEnumData = 12 * word

    static let flagAlignmentMask: UInt32 = 0xFF
    static let flagIsNonPOD: UInt32 = 0x0001_0000
    static let flagIsNonInline: UInt32 = 0x0002_0000
    static let flagHasEnumWitnesses: UInt32 = 0x0020_0000
    static let flagIncomplete: UInt32 = 0x0040_0000

    // Class metadata (after the isa/kind word and the superclass pointer; Objective-C
    // interoperability adds a cache and a data pointer before the Swift fields).
    #if canImport(ObjectiveC)
    static let classSwiftFields = 5 * word
    #else
    static let classSwiftFields = 2 * word
    #endif
    static let classInstanceSize = classSwiftFields + 8
    static let classDescription = classSwiftFields + 24

    // Nominal type descriptors.
    static let descriptorFields = 16
    static let enumPayloadCases = 20
    static let descriptorKindMask: UInt32 = 0x1F
    static let descriptorKindClass: UInt32 = 16
    static let descriptorKindStruct: UInt32 = 17
    static let descriptorKindEnum: UInt32 = 18
    // Every context descriptor: flags, then the parent (a relative pointer that may be
    // indirect); modules, types and protocols then have their name (a relative pointer).
    static let descriptorParent = 4
    static let descriptorName = 8
    static let descriptorKindModule: UInt32 = 0
    static let descriptorKindExtension: UInt32 = 1
    static let descriptorKindAnonymous: UInt32 = 2
    static let descriptorKindProtocol: UInt32 = 3
    static let descriptorKindOpaqueType: UInt32 = 4
    static let descriptorIsGeneric: UInt32 = 0x80
    static let classHasResilientSuperclass: UInt32 = 1 << (16 + 13)
    static let classPositiveSize = 28
    static let classImmediateMembers = 32
    /// Generic arguments of struct and enum metadata start after the kind and description.
    static let valueGenericArguments = 2 * word

    // Field descriptors and records.
    static let fieldDescriptorRecordSize = 10
    static let fieldDescriptorCount = 12
    static let fieldDescriptorRecords = 16
    static let fieldRecordType = 4
    static let fieldRecordName = 8
    static let fieldRecordIsIndirect: UInt32 = 0x1

    // Closure contexts: `HeapLocalVariableMetadata` and its capture descriptor.
    static let contextOffsetToFirstCapture = word
    static let contextCaptureDescriptor = 2 * word
    static let captureHeaderSize = 12

    // `GenericBoxHeapMetadata`: the boxed value's offset, then its type.
    static let boxValueOffset = word
    static let boxValueType = 2 * word

    // Function type metadata: flags (parameter count, convention) after the kind.
    static let functionFlags = word
    static let functionConventionMask: UInt = 0x00FF_0000
    static let functionConventionShift: UInt = 16
    static let functionConventionSwift: UInt = 0

    // Existential type metadata: flags and protocol count after the kind.
    static let existentialFlags = word
    static let existentialWitnessTablesMask: UInt32 = 0x00FF_FFFF
    static let existentialAnyConstraint: UInt32 = 0x8000_0000
    static let existentialSpecialProtocolMask: UInt32 = 0x3F00_0000
    static let existentialSpecialProtocolShift: UInt32 = 24

    // Tuple type metadata: element count, labels, then (type, offset) pairs.
    static let tupleCount = word
    static let tupleElements = 3 * word
    static let tupleElementSize = 2 * word

    // Inline reference counts: the deiniting bit of a 64-bit `InlineRefCountBits`.
    static let refCountUseSlowRC: UInt = 1 << 63
    static let refCountIsDeiniting: UInt = 1 << 32
}
