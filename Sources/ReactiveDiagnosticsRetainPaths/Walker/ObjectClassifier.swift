/// Decides what a word that should point at a heap object points at, reading only through
/// ``ProcessMemory`` and checking the header against the runtime's ABI before believing it.
struct ObjectClassifier {
    /// A heap object, as far as its header says.
    enum Object {
        /// A class instance (its metadata validated).
        case instance(metadata: UInt)
        /// A closure context or fixed-layout box (`HeapLocalVariable` metadata).
        case context(metadata: UInt)
        /// A box made by `swift_allocBox`: the value's offset and type.
        case genericBox(valueOffset: Int, valueType: UInt)
        /// Something else on the heap (an error box, a task…), or a header the walker does not
        /// understand.
        case other(String)
    }

    let memory: ProcessMemory
    let regions: MemoryRegions

    /// What `address` is, or `nil` when it is not a live heap object (null, unreadable,
    /// misaligned, deinitializing, or with a header that is not metadata).
    func classify(_ address: UInt) -> Object? {
        guard address >= 4096, address & 0x7 == 0, regions.isWritable(address),
            let header = memory.withBytes(
                at: address, count: RuntimeLayout.heapObjectSize,
                { bytes in
                    (bytes.load(as: UInt.self), bytes.load(fromByteOffset: RuntimeLayout.word, as: UInt.self))
                })
        else { return nil }
        let (metadata, refCounts) = header
        if refCounts & RuntimeLayout.refCountUseSlowRC == 0, refCounts & RuntimeLayout.refCountIsDeiniting != 0 {
            return nil
        }
        guard metadata >= 4096, metadata & 0x7 == 0, let kindWord = memory.word(at: metadata) else { return nil }
        switch MetadataKind(word: kindWord) {
        case .class:
            return isClassMetadata(metadata) ? .instance(metadata: metadata) : nil
        case .heapLocalVariable:
            // The compiler emits every closure context's (and fixed-layout box's) metadata as a
            // constant in its image; the runtime never makes one. A header pointing elsewhere is
            // a stale or foreign word (a freed object, a scanned thread's stack) that happens to
            // lead to the kind's value: its "capture descriptor" would hand the runtime a name
            // read from anywhere.
            guard regions.isInImage(metadata),
                let descriptor = memory.word(at: metadata &+ UInt(RuntimeLayout.contextCaptureDescriptor)),
                descriptor == 0 || regions.isInImage(descriptor),
                let offset = memory.uint32(at: metadata &+ UInt(RuntimeLayout.contextOffsetToFirstCapture)),
                offset >= UInt32(RuntimeLayout.heapObjectSize), offset < 4096
            else { return nil }
            return .context(metadata: metadata)
        case .heapGenericLocalVariable:
            guard let offset = memory.uint32(at: metadata &+ UInt(RuntimeLayout.boxValueOffset)),
                offset >= UInt32(RuntimeLayout.heapObjectSize), offset < 4096,
                let valueType = memory.word(at: metadata &+ UInt(RuntimeLayout.boxValueType)),
                isTypeMetadata(valueType)
            else { return nil }
            return .genericBox(valueOffset: Int(offset), valueType: valueType)
        case .errorObject:
            return .other("an error box")
        case .task:
            return .other("a task")
        case .job:
            return .other("a job")
        default:
            return nil
        }
    }

    /// Whether `metadata` looks like class metadata: a nominal class descriptor in an image,
    /// a plausible instance size, and a value witness table that can be read.
    func isClassMetadata(_ metadata: UInt) -> Bool {
        isClassMetadata(metadata, depth: 0)
    }

    /// The checks of ``isClassMetadata(_:)`` for `metadata` and every superclass above it (the
    /// runtime's reflection walks that chain: a word that only looks like a class at its own
    /// level must not send it there), with their field descriptors in an image.
    private func isClassMetadata(_ metadata: UInt, depth: Int) -> Bool {
        guard depth < 64, metadata >= 4096, metadata & 0x7 == 0,
            let description = memory.word(at: metadata &+ UInt(RuntimeLayout.classDescription)),
            description != 0, regions.isInImage(description),
            let flags = memory.uint32(at: description),
            flags & RuntimeLayout.descriptorKindMask == RuntimeLayout.descriptorKindClass,
            isNameableDescriptor(description),
            let fields = memory.uint32(at: description &+ UInt(RuntimeLayout.descriptorFields)),
            fields == 0
                || regions.isInImage(
                    description &+ UInt(RuntimeLayout.descriptorFields)
                        &+ UInt(bitPattern: Int(Int32(bitPattern: fields)))),
            let size = memory.uint32(at: metadata &+ UInt(RuntimeLayout.classInstanceSize)),
            size >= UInt32(RuntimeLayout.heapObjectSize), size < 1 << 20,
            let witnesses = memory.word(at: metadata &- UInt(RuntimeLayout.word)),
            memory.word(at: witnesses) != nil,
            let superclass = memory.word(at: metadata &+ UInt(RuntimeLayout.word))
        else { return false }
        guard superclass != 0 else { return true }
        return memory.word(at: superclass) == 0 && isClassMetadata(superclass, depth: depth + 1)
    }

    /// Whether `metadata` looks like type metadata the runtime may be asked about: a known
    /// kind, for nominal types a descriptor of the matching kind in an image, and for structural
    /// types (tuples, functions, metatypes) the types they are made of checked the same way (the
    /// runtime follows them when it names or lays out the type); builtin types live in an image.
    func isTypeMetadata(_ metadata: UInt) -> Bool {
        isTypeMetadata(metadata, depth: 0)
    }

    private func isTypeMetadata(_ metadata: UInt, depth: Int) -> Bool {
        guard depth < 8, metadata >= 4096, metadata & 0x7 == 0, let kindWord = memory.word(at: metadata),
            let witnesses = memory.word(at: metadata &- UInt(RuntimeLayout.word)),
            memory.word(at: witnesses &+ UInt(RuntimeLayout.witnessSize)) != nil
        else { return false }
        let expected: UInt32
        switch MetadataKind(word: kindWord) {
        case .class:
            return isClassMetadata(metadata)
        case .struct:
            expected = RuntimeLayout.descriptorKindStruct
        case .enum, .optional:
            expected = RuntimeLayout.descriptorKindEnum
        case .opaque:
            return regions.isInImage(metadata)
        case .tuple:
            return isTupleMetadata(metadata, depth: depth)
        case .function:
            guard let flags = memory.word(at: metadata &+ UInt(RuntimeLayout.word)), flags & 0xFFFF < 64,
                let result = memory.word(at: metadata &+ UInt(2 * RuntimeLayout.word))
            else { return false }
            return isTypeMetadata(result, depth: depth + 1)
        case .metatype, .existentialMetatype:
            guard let instance = memory.word(at: metadata &+ UInt(RuntimeLayout.word)) else { return false }
            return isTypeMetadata(instance, depth: depth + 1)
        case .existential:
            guard let protocols = memory.uint32(at: metadata &+ UInt(RuntimeLayout.word) &+ 4) else { return false }
            return protocols < 64
        default:
            return false
        }
        guard let description = memory.word(at: metadata &+ UInt(RuntimeLayout.word)), regions.isInImage(description),
            let flags = memory.uint32(at: description)
        else { return false }
        return flags & RuntimeLayout.descriptorKindMask == expected && isNameableDescriptor(description)
    }

    /// Whether `descriptor` is a context descriptor the runtime can name: it, and each parent
    /// up to a module, lies in a loaded image, is of a kind the runtime knows, and (for a type or
    /// a module) has a name in an image. Naming a type (`swift_getTypeName`) walks this chain
    /// and trusts every link: words that only look like a class header at their own level (a
    /// holder scan's guess at an object start, another thread's stack) must not send it there.
    /// Answers are remembered for the walk.
    func isNameableDescriptor(_ descriptor: UInt) -> Bool {
        if let known = memory.rememberedDescriptors[descriptor] {
            return known
        }
        var current = descriptor
        var answer = false
        chain: for _ in 0..<Self.descriptorDepthLimit {
            guard regions.isInImage(current), let flags = memory.uint32(at: current) else { break }
            switch flags & RuntimeLayout.descriptorKindMask {
            case RuntimeLayout.descriptorKindModule:
                answer = hasName(current)
                break chain
            case RuntimeLayout.descriptorKindClass, RuntimeLayout.descriptorKindStruct,
                RuntimeLayout.descriptorKindEnum,
                RuntimeLayout.descriptorKindProtocol:
                guard hasName(current) else { break chain }
            case RuntimeLayout.descriptorKindExtension, RuntimeLayout.descriptorKindAnonymous,
                RuntimeLayout.descriptorKindOpaqueType:
                break
            default:
                break chain
            }
            guard let parent = memory.indirectablePointer(at: current &+ UInt(RuntimeLayout.descriptorParent)) else {
                break
            }
            current = parent
        }
        memory.rememberedDescriptors[descriptor] = answer
        return answer
    }

    /// Parents followed at most (a nested type's chain is a few levels deep).
    static let descriptorDepthLimit = 32

    /// Whether the descriptor's name is a non-empty C string in an image, without control
    /// characters.
    private func hasName(_ descriptor: UInt) -> Bool {
        guard let name = memory.relativePointer(at: descriptor &+ UInt(RuntimeLayout.descriptorName)),
            regions.isInImage(name), let text = memory.cString(at: name, limit: 1024)
        else { return false }
        return !text.isEmpty && !text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }

    /// A tuple's element count is small and every element's type is type metadata.
    private func isTupleMetadata(_ metadata: UInt, depth: Int) -> Bool {
        guard let count = memory.word(at: metadata &+ UInt(RuntimeLayout.tupleCount)), count < 256 else { return false }
        for index in 0..<Int(count) {
            let element = metadata &+ UInt(RuntimeLayout.tupleElements + index * RuntimeLayout.tupleElementSize)
            guard let type = memory.word(at: element), isTypeMetadata(type, depth: depth + 1) else { return false }
        }
        return true
    }
}
