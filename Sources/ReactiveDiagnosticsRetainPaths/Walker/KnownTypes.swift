import CReactiveDiagnostics

/// Types the walker treats specially, identified by their metadata or nominal type
/// descriptor, learnt from sample values of this very runtime rather than from hard-coded
/// addresses or layouts.
final class KnownTypes: Sendable {
    /// Standard library collection storage classes.
    enum StorageKind: Sendable {
        case array
        case set
        case dictionary
    }

    /// Where a collection storage class keeps what the walker reads.
    struct StorageLayout: Sendable {
        /// Offset of the element count.
        var count: Int
        /// Offset of the log2 of the bucket count (hashed collections).
        var scale: Int
        /// Offsets of the element (or key) and value pointers (hashed collections).
        var elements: Int
        var values: Int
    }

    /// Types without references worth following (strings hold only string storage).
    private let referenceFree: Set<UInt>
    /// `Builtin.NativeObject` and friends: one strong reference.
    private let strongReferences: Set<UInt>
    private let arrayDescriptors: Set<UInt>
    private let setDescriptor: UInt
    private let dictionaryDescriptor: UInt
    private let storageDescriptors: [UInt: StorageKind]
    let arrayCountOffset: Int
    let setLayout: StorageLayout?
    let dictionaryLayout: StorageLayout?

    init() {
        // Samples first, then reads that keep no page: metadata instantiated while this runs
        // (by the runtime's field lookups) must be seen.
        let samples: [Any.Type] = [[Int].self, ContiguousArray<Int>.self, Set<Int>.self, [Int: Int].self]
        let array = [1]
        let set: Set<Int> = [1]
        let dictionary = [1: 1]
        referenceFree = Set([String.self, Substring.self, Character.self, StaticString.self].map(Self.metadata))
        strongReferences = Set(["Bo", "BO", "Bb"].compactMap(Self.builtin))
        let memory = ProcessMemory(pageBudget: 0)
        func descriptor(_ type: Any.Type) -> UInt {
            memory.word(at: Self.metadata(type) &+ UInt(RuntimeLayout.word)) ?? 0
        }
        arrayDescriptors = [descriptor(samples[0]), descriptor(samples[1])]
        setDescriptor = descriptor(samples[2])
        dictionaryDescriptor = descriptor(samples[3])

        // Storage classes, from the isa of live sample storage.
        func storageClass(_ value: some Any) -> UInt? {
            withUnsafeBytes(of: value) { bytes -> UInt? in
                guard bytes.count == RuntimeLayout.word else { return nil }
                let object = bytes.load(as: UInt.self)
                return memory.word(at: object)
            }
        }
        var storages: [UInt: StorageKind] = [:]
        var arrayCount = RuntimeLayout.heapObjectSize
        var setLayout: StorageLayout?
        var dictionaryLayout: StorageLayout?
        let reader = StorageFieldReader()
        if let isa = storageClass(array), let descriptor = memory.word(at: isa &+ UInt(RuntimeLayout.classDescription))
        {
            storages[descriptor] = .array
            arrayCount = reader.offset(of: "countAndCapacity", inClass: isa) ?? RuntimeLayout.heapObjectSize
        }
        if let isa = storageClass(set), let descriptor = memory.word(at: isa &+ UInt(RuntimeLayout.classDescription)) {
            storages[descriptor] = .set
            if let count = reader.offset(of: "_count", inClass: isa),
                let scale = reader.offset(of: "_scale", inClass: isa),
                let elements = reader.offset(of: "_rawElements", inClass: isa)
            {
                setLayout = StorageLayout(count: count, scale: scale, elements: elements, values: elements)
            }
        }
        if let isa = storageClass(dictionary),
            let descriptor = memory.word(at: isa &+ UInt(RuntimeLayout.classDescription))
        {
            storages[descriptor] = .dictionary
            if let count = reader.offset(of: "_count", inClass: isa),
                let scale = reader.offset(of: "_scale", inClass: isa),
                let keys = reader.offset(of: "_rawKeys", inClass: isa),
                let values = reader.offset(of: "_rawValues", inClass: isa)
            {
                dictionaryLayout = StorageLayout(count: count, scale: scale, elements: keys, values: values)
            }
        }
        withExtendedLifetime((array, set, dictionary)) {}
        storageDescriptors = storages
        arrayCountOffset = arrayCount
        self.setLayout = setLayout
        self.dictionaryLayout = dictionaryLayout
    }

    private static func metadata(_ type: Any.Type) -> UInt {
        UInt(bitPattern: unsafeBitCast(type, to: UnsafeRawPointer.self))
    }

    private static func builtin(_ name: StaticString) -> UInt? {
        name.withUTF8Buffer { buffer -> UInt? in
            guard let start = buffer.baseAddress else { return nil }
            let pointer = UnsafeRawPointer(start).assumingMemoryBound(to: CChar.self)
            return rdiag_swift_type_by_mangled_name(pointer, buffer.count, nil, nil).map { UInt(bitPattern: $0) }
        }
    }

    /// A layout decided by the type's identity, if it is one of these.
    func layout(of metadata: UInt) -> TypeShape.Layout? {
        if referenceFree.contains(metadata) {
            return .noReferences
        }
        if strongReferences.contains(metadata) {
            return .strongReference
        }
        return nil
    }

    /// The collection layout of a struct type that is `Array`, `ContiguousArray`, `Set` or
    /// `Dictionary`.
    func container(_ metadata: UInt, memory: ProcessMemory) -> TypeShape.Layout? {
        guard let descriptor = memory.word(at: metadata &+ UInt(RuntimeLayout.word)) else { return nil }
        let arguments = metadata &+ UInt(RuntimeLayout.valueGenericArguments)
        if arrayDescriptors.contains(descriptor), let element = memory.word(at: arguments) {
            return .array(element: element)
        }
        if descriptor == setDescriptor, setLayout != nil, let element = memory.word(at: arguments) {
            return .set(element: element)
        }
        if descriptor == dictionaryDescriptor, dictionaryLayout != nil, let key = memory.word(at: arguments),
            let value = memory.word(at: arguments &+ UInt(RuntimeLayout.word))
        {
            return .dictionary(key: key, value: value)
        }
        return nil
    }

    /// Which collection storage a class is, if it is one.
    func storageKind(ofClass metadata: UInt, memory: ProcessMemory) -> StorageKind? {
        guard let descriptor = memory.word(at: metadata &+ UInt(RuntimeLayout.classDescription)) else { return nil }
        return storageDescriptors[descriptor]
    }
}

/// Field offsets of the standard library's storage classes, by name.
private struct StorageFieldReader {
    func offset(of name: String, inClass metadata: UInt) -> Int? {
        guard let type = UnsafeRawPointer(bitPattern: metadata) else { return nil }
        let count = rdiag_swift_field_count(type)
        guard count > 0, count < 64 else { return nil }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 128) { buffer -> Int? in
            for index in 0..<count {
                var offset = 0
                var isStrong: Int32 = 0
                if rdiag_swift_field(type, index, &offset, buffer.baseAddress!, buffer.count, &isStrong) != nil,
                    String(cString: buffer.baseAddress!) == name
                {
                    return offset
                }
            }
            return nil
        }
    }
}
