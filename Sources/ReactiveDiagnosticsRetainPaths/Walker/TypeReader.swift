import CReactiveDiagnostics
import _ReactiveDiagnosticsSupport

/// Reads type metadata for the walker, once per type, through the Swift runtime and fault-free
/// memory reads. Metadata is immortal, so what is learnt is kept for the life of the process.
///
/// Metadata handed to the runtime (`_typeName`, field enumeration, mangled-name resolution)
/// is either the runtime's own answer or, when read from an object's header, validated first
/// (``ObjectClassifier``): the runtime itself reads memory without guarding its reads.
final class TypeReader: Sendable {
    /// The reader every walk shares.
    static let shared = TypeReader()

    private struct State {
        var shapes: [UInt: TypeShape] = [:]
        var classes: [UInt: ClassInfo] = [:]
        var names: [UInt: String] = [:]
    }

    private let state = LockedValue(State())
    let known: KnownTypes

    init() {
        known = KnownTypes()
    }

    // MARK: Names

    /// The type's name as Swift prints it (`Set<AnyCancellable>`), or qualified with its module.
    func name(of metadata: UInt, qualified: Bool = false) -> String {
        let key = qualified ? metadata | 1 : metadata
        if let cached = state.withLock({ $0.names[key] }) {
            return cached
        }
        guard let pointer = UnsafeRawPointer(bitPattern: metadata) else { return "?" }
        let name = _typeName(unsafeBitCast(pointer, to: Any.Type.self), qualified: qualified)
        state.withLock { $0.names[key] = name }
        return name
    }

    /// The module a type belongs to: its qualified name's first component (`Swift` for
    /// `Swift.Set<OpenCombine.AnyCancellable>`).
    func module(of metadata: UInt) -> String {
        let qualified = name(of: metadata, qualified: true)
        let end = qualified.firstIndex { $0 == "." || $0 == "<" || $0 == "(" } ?? qualified.endIndex
        return String(qualified[..<end])
    }

    // MARK: Shapes

    /// How values of the (trusted) type `metadata` hold references.
    func shape(of metadata: UInt, memory: ProcessMemory) -> TypeShape? {
        if let cached = state.withLock({ $0.shapes[metadata] }) {
            return cached
        }
        let computed = computeShape(metadata, memory: memory)
        memory.forgetPages()
        guard let shape = computed else { return nil }
        state.withLock { $0.shapes[metadata] = shape }
        return shape
    }

    private func computeShape(_ metadata: UInt, memory: ProcessMemory) -> TypeShape? {
        guard let kindWord = memory.word(at: metadata),
            let witnesses = memory.word(at: metadata &- UInt(RuntimeLayout.word)),
            let size = memory.word(at: witnesses &+ UInt(RuntimeLayout.witnessSize)),
            let flags = memory.uint32(at: witnesses &+ UInt(RuntimeLayout.witnessFlags)),
            size < 1 << 24
        else { return nil }
        let kind = MetadataKind(word: kindWord)
        let layout = computeLayout(metadata, kind: kind, flags: flags, size: Int(size), memory: memory)
        return TypeShape(
            metadata: metadata, kind: kind, size: Int(size),
            alignmentMask: Int(flags & RuntimeLayout.flagAlignmentMask),
            flags: flags, layout: layout)
    }

    private func computeLayout(
        _ metadata: UInt, kind: MetadataKind, flags: UInt32, size: Int, memory: ProcessMemory
    ) -> TypeShape.Layout {
        if let special = known.layout(of: metadata) {
            return special
        }
        if flags & RuntimeLayout.flagIsNonPOD == 0 {
            return .noReferences
        }
        switch kind {
        case .class:
            return .strongReference
        case .struct:
            if let container = known.container(metadata, memory: memory) {
                return container
            }
            return .fields(fields(of: metadata))
        case .tuple:
            return tupleLayout(metadata, memory: memory)
        case .optional:
            guard let wrapped = memory.word(at: metadata &+ UInt(RuntimeLayout.valueGenericArguments)) else {
                return .unknown("Optional without its wrapped type")
            }
            return .optional(wrapped: wrapped)
        case .enum:
            return enumLayout(metadata, flags: flags, memory: memory)
        case .function:
            guard let functionFlags = memory.word(at: metadata &+ UInt(RuntimeLayout.functionFlags)) else {
                return .unknown("function type")
            }
            let convention =
                (functionFlags & RuntimeLayout.functionConventionMask) >> RuntimeLayout.functionConventionShift
            if convention == RuntimeLayout.functionConventionSwift && size == 2 * RuntimeLayout.word {
                return .thickFunction
            }
            return .noReferences
        case .existential:
            guard let existentialFlags = memory.uint32(at: metadata &+ UInt(RuntimeLayout.existentialFlags)) else {
                return .unknown("existential")
            }
            let special =
                (existentialFlags & RuntimeLayout.existentialSpecialProtocolMask)
                >> RuntimeLayout.existentialSpecialProtocolShift
            if special == 1 {
                return .unknown("any Error")
            }
            return existentialFlags & RuntimeLayout.existentialAnyConstraint == 0
                ? .classExistential : .opaqueExistential
        case .metatype, .existentialMetatype:
            return .noReferences
        default:
            return .unknown(name(of: metadata))
        }
    }

    /// Stored properties of a struct or class type, superclasses' first (the runtime's own
    /// reflection, which knows resilient and generic layouts).
    func fields(of metadata: UInt) -> [TypeField] {
        guard let type = UnsafeRawPointer(bitPattern: metadata) else { return [] }
        let count = rdiag_swift_field_count(type)
        guard count > 0, count < 4096 else { return [] }
        var fields: [TypeField] = []
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { name in
            for index in 0..<count {
                var offset = 0
                var isStrong: Int32 = 0
                guard let fieldType = rdiag_swift_field(type, index, &offset, name.baseAddress!, name.count, &isStrong)
                else {
                    continue
                }
                fields.append(
                    TypeField(
                        name: String(cString: name.baseAddress!), offset: offset, type: UInt(bitPattern: fieldType),
                        isStrong: isStrong != 0))
            }
        }
        return fields
    }

    private func tupleLayout(_ metadata: UInt, memory: ProcessMemory) -> TypeShape.Layout {
        guard let count = memory.word(at: metadata &+ UInt(RuntimeLayout.tupleCount)), count < 256 else {
            return .unknown("tuple")
        }
        var fields: [TypeField] = []
        for index in 0..<Int(count) {
            let element = metadata &+ UInt(RuntimeLayout.tupleElements + index * RuntimeLayout.tupleElementSize)
            guard let type = memory.word(at: element),
                let offset = memory.uint32(at: element &+ UInt(RuntimeLayout.word))
            else {
                return .unknown("tuple")
            }
            fields.append(TypeField(name: ".\(index)", offset: Int(offset), type: type, isStrong: true))
        }
        return .fields(fields)
    }

    private func enumLayout(_ metadata: UInt, flags: UInt32, memory: ProcessMemory) -> TypeShape.Layout {
        guard flags & RuntimeLayout.flagHasEnumWitnesses != 0,
            let descriptor = memory.word(at: metadata &+ UInt(RuntimeLayout.word)),
            let payloadWord = memory.uint32(at: descriptor &+ UInt(RuntimeLayout.enumPayloadCases)),
            let fieldDescriptor = memory.relativePointer(at: descriptor &+ UInt(RuntimeLayout.descriptorFields)),
            let recordSize = memory.uint16(at: fieldDescriptor &+ UInt(RuntimeLayout.fieldDescriptorRecordSize)),
            let recordCount = memory.uint32(at: fieldDescriptor &+ UInt(RuntimeLayout.fieldDescriptorCount))
        else { return .unknown(name(of: metadata)) }
        let payloadCases = Int(payloadWord & 0x00FF_FFFF)
        guard payloadCases <= Int(recordCount), recordCount < 4096, recordSize >= 12 else {
            return .unknown(name(of: metadata))
        }
        var payloads: [EnumPayload] = []
        let arguments = UnsafeRawPointer(bitPattern: metadata &+ UInt(RuntimeLayout.valueGenericArguments))
        for index in 0..<payloadCases {
            let record = fieldDescriptor &+ UInt(RuntimeLayout.fieldDescriptorRecords + index * Int(recordSize))
            let recordFlags = memory.uint32(at: record) ?? 0
            let caseName =
                memory.relativePointer(at: record &+ UInt(RuntimeLayout.fieldRecordName))
                .flatMap { memory.cString(at: $0) } ?? "case \(index)"
            var payloadType: UInt?
            if let nameAddress = memory.relativePointer(at: record &+ UInt(RuntimeLayout.fieldRecordType)),
                let mangled = MangledName(at: nameAddress, memory: memory),
                let pointer = UnsafePointer<CChar>(bitPattern: mangled.address),
                let resolved = rdiag_swift_type_by_mangled_name(
                    pointer, mangled.length, UnsafeRawPointer(bitPattern: descriptor),
                    arguments.map { $0.assumingMemoryBound(to: UnsafeRawPointer?.self) })
            {
                payloadType = UInt(bitPattern: resolved)
            }
            payloads.append(
                EnumPayload(
                    name: caseName, type: payloadType,
                    isIndirect: recordFlags & RuntimeLayout.fieldRecordIsIndirect != 0))
        }
        return .enumeration(payloads: payloads)
    }

    // MARK: Classes

    /// Generic argument `index` of a (validated) generic class's metadata, when its superclass
    /// is not resilient (the arguments then sit at a fixed offset the descriptor gives).
    func classGenericArgument(_ metadata: UInt, index: Int, memory: ProcessMemory) -> UInt? {
        guard let descriptor = memory.word(at: metadata &+ UInt(RuntimeLayout.classDescription)),
            let flags = memory.uint32(at: descriptor),
            flags & RuntimeLayout.descriptorIsGeneric != 0,
            flags & RuntimeLayout.classHasResilientSuperclass == 0,
            let positive = memory.uint32(at: descriptor &+ UInt(RuntimeLayout.classPositiveSize)),
            let immediate = memory.uint32(at: descriptor &+ UInt(RuntimeLayout.classImmediateMembers)),
            positive >= immediate, positive < 4096
        else { return nil }
        return memory.word(at: metadata &+ UInt((Int(positive - immediate) + index) * RuntimeLayout.word))
    }

    /// Facts about a (validated) class: instance size, stored properties, name.
    func classInfo(_ metadata: UInt, memory: ProcessMemory) -> ClassInfo? {
        if let cached = state.withLock({ $0.classes[metadata] }) {
            return cached
        }
        guard let instanceSize = memory.uint32(at: metadata &+ UInt(RuntimeLayout.classInstanceSize)),
            instanceSize >= UInt32(RuntimeLayout.heapObjectSize), instanceSize < 1 << 20
        else { return nil }
        let info = ClassInfo(
            metadata: metadata, instanceSize: Int(instanceSize), fields: fields(of: metadata),
            storage: known.storageKind(ofClass: metadata, memory: memory))
        memory.forgetPages()
        state.withLock { $0.classes[metadata] = info }
        return info
    }
}

/// What the walker needs about a class.
struct ClassInfo {
    let metadata: UInt
    let instanceSize: Int
    let fields: [TypeField]
    /// Set when instances are the standard library's collection storage.
    let storage: KnownTypes.StorageKind?
}
