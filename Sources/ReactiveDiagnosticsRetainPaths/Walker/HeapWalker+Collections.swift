extension HeapWalker {
    /// Bytes of one collection's elements read at most.
    static let collectionByteLimit = 1 << 22
    /// Hashed collections with more than 2^this buckets are not read.
    static let scaleLimit = 24

    /// The elements of a collection's storage object met as an object of its own (a closure
    /// whose only capture is an array uses its storage as its context).
    func visitStorage(
        _ storage: UInt, kind: KnownTypes.StorageKind, metadata: UInt, path: [PathStep] = [],
        depth: Int = 0, into references: inout [HeapReference]
    ) {
        let first = types.classGenericArgument(metadata, index: 0, memory: memory)
        switch kind {
        case .array:
            guard let element = first else { break }
            visitArray(storage, element: element, path: path, depth: depth, into: &references)
            return
        case .set:
            guard let element = first else { break }
            visitHashed(storage, key: element, value: nil, path: path, depth: depth, into: &references)
            return
        case .dictionary:
            guard let key = first, let value = types.classGenericArgument(metadata, index: 1, memory: memory) else {
                break
            }
            visitHashed(storage, key: key, value: value, path: path, depth: depth, into: &references)
            return
        }
        note("a collection whose element type could not be read")
    }

    /// The elements of an array whose storage object is `storage`.
    func visitArray(
        _ storage: UInt, element: UInt, path: [PathStep], depth: Int,
        into references: inout [HeapReference]
    ) {
        if stopAt.contains(storage) {
            references.append(HeapReference(target: storage, strength: .strong, path: path))
            return
        }
        guard let elementShape = types.shape(of: element, memory: memory), !elementShape.isPOD,
            case .instance(let metadata)? = classifier.classify(storage),
            let info = types.classInfo(metadata, memory: memory), info.storage == .array,
            let count = memory.word(at: storage &+ UInt(types.known.arrayCountOffset)).map({ Int(bitPattern: $0) }),
            count > 0
        else { return }
        let stride = max(1, (elementShape.size + elementShape.alignmentMask) & ~elementShape.alignmentMask)
        let start = (info.instanceSize + elementShape.alignmentMask) & ~elementShape.alignmentMask
        let read = min(count, elementLimit, Self.collectionByteLimit / stride)
        if read < count {
            note("an array of \(count) elements, of which the first \(read) were read")
        }
        guard let bytes = memory.bytes(at: storage &+ UInt(start), count: read * stride) else { return }
        bytes.withUnsafeBytes { buffer in
            for index in 0..<read {
                let slice = UnsafeRawBufferPointer(
                    rebasing: buffer[(index * stride)..<(index * stride + elementShape.size)])
                visitValue(elementShape, in: slice, path: path + [.element], depth: depth + 1, into: &references)
            }
        }
    }

    /// The elements of a set (`value == nil`) or the keys and values of a dictionary whose
    /// storage object is `storage`: the occupied buckets of its bitmap.
    func visitHashed(
        _ storage: UInt, key: UInt, value: UInt?, path: [PathStep], depth: Int,
        into references: inout [HeapReference]
    ) {
        if stopAt.contains(storage) {
            references.append(HeapReference(target: storage, strength: .strong, path: path))
            return
        }
        let keyShape = types.shape(of: key, memory: memory)
        let valueShape = value.flatMap { types.shape(of: $0, memory: memory) }
        let followsKeys = keyShape.map { !$0.isPOD } ?? false
        let followsValues = valueShape.map { !$0.isPOD } ?? false
        guard followsKeys || followsValues,
            case .instance(let metadata)? = classifier.classify(storage),
            let info = types.classInfo(metadata, memory: memory),
            info.storage == (value == nil ? .set : .dictionary),
            let layout = value == nil ? types.known.setLayout : types.known.dictionaryLayout,
            let count = memory.word(at: storage &+ UInt(layout.count)).map({ Int(bitPattern: $0) }), count > 0,
            let scale = memory.withBytes(at: storage &+ UInt(layout.scale), count: 1, { Int($0[0]) }),
            scale < Self.scaleLimit, count <= 1 << scale,
            let keys = memory.word(at: storage &+ UInt(layout.elements)),
            let values = memory.word(at: storage &+ UInt(layout.values))
        else { return }
        let buckets = 1 << scale
        let wordBits = UInt.bitWidth
        let bitmapStart = storage &+ UInt((info.instanceSize + RuntimeLayout.word - 1) & ~(RuntimeLayout.word - 1))
        guard
            let bitmap = memory.bytes(at: bitmapStart, count: (buckets + wordBits - 1) / wordBits * RuntimeLayout.word)
        else { return }
        var visited = 0
        for bucket in 0..<buckets where visited < min(count, elementLimit) {
            let word = bitmap.withUnsafeBytes {
                $0.load(fromByteOffset: (bucket / wordBits) * RuntimeLayout.word, as: UInt.self)
            }
            guard word & (1 << UInt(bucket % wordBits)) != 0 else { continue }
            visited += 1
            if followsKeys, let keyShape {
                visitElement(
                    keyShape, at: keys, bucket: bucket, path: path + [value == nil ? .element : .key],
                    depth: depth, into: &references)
            }
            if followsValues, let valueShape {
                visitElement(
                    valueShape, at: values, bucket: bucket, path: path + [.value], depth: depth,
                    into: &references)
            }
        }
        if count > elementLimit {
            note("a collection of \(count) elements, of which the first \(elementLimit) were read")
        }
    }

    private func visitElement(
        _ shape: TypeShape, at base: UInt, bucket: Int, path: [PathStep], depth: Int,
        into references: inout [HeapReference]
    ) {
        let stride = max(1, (shape.size + shape.alignmentMask) & ~shape.alignmentMask)
        guard let bytes = memory.bytes(at: base &+ UInt(bucket * stride), count: shape.size) else { return }
        bytes.withUnsafeBytes { buffer in
            visitValue(shape, in: buffer, path: path, depth: depth + 1, into: &references)
        }
    }
}
