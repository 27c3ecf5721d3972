import CReactiveDiagnostics

extension HeapWalker {
    /// The references a value holds. `bytes` is the walker's own copy of the value.
    func visitValue(
        _ shape: TypeShape, in bytes: UnsafeRawBufferPointer, path: [PathStep], depth: Int,
        into references: inout [HeapReference]
    ) {
        guard depth < depthLimit, !shape.isPOD, bytes.count >= shape.size else { return }
        steps += 1
        switch shape.layout {
        case .noReferences:
            return
        case .strongReference:
            visitObject(word(bytes, 0), strength: .strong, path: path, depth: depth, into: &references)
        case .thickFunction:
            visitFunction(
                word(bytes, 0), context: word(bytes, RuntimeLayout.word), path: path, depth: depth,
                into: &references)
        case .fields(let fields):
            visitFields(fields, in: bytes, path: path, depth: depth, into: &references)
        case .optional(let wrapped):
            guard let tag = enumTag(shape, bytes), tag == 0, let wrappedShape = types.shape(of: wrapped, memory: memory)
            else {
                return
            }
            withProjectedPayload(shape, bytes) { payload in
                visitValue(wrappedShape, in: payload, path: path, depth: depth + 1, into: &references)
            }
        case .enumeration(let payloads):
            guard let tag = enumTag(shape, bytes), tag < payloads.count else { return }
            let payload = payloads[tag]
            guard let type = payload.type else {
                note("the payload of case \(payload.name) of \(types.name(of: shape.metadata))")
                return
            }
            withProjectedPayload(shape, bytes) { projected in
                let path = path + [.payload(payload.name)]
                if payload.isIndirect {
                    visitBox(word(projected, 0), path: path, depth: depth + 1, into: &references)
                } else if let payloadShape = types.shape(of: type, memory: memory) {
                    visitValue(payloadShape, in: projected, path: path, depth: depth + 1, into: &references)
                }
            }
        case .classExistential:
            visitObject(word(bytes, 0), strength: .strong, path: path + [.existential], depth: depth, into: &references)
        case .opaqueExistential:
            visitOpaqueExistential(bytes, path: path + [.existential], depth: depth, into: &references)
        case .array(let element):
            visitArray(word(bytes, 0), element: element, path: path, depth: depth, into: &references)
        case .set(let element):
            visitHashed(word(bytes, 0), key: element, value: nil, path: path, depth: depth, into: &references)
        case .dictionary(let key, let value):
            visitHashed(word(bytes, 0), key: key, value: value, path: path, depth: depth, into: &references)
        case .unknown(let what):
            note("a value of type \(what)")
        }
    }

    /// Stored properties (or tuple elements) of a value or instance in `bytes`.
    func visitFields(
        _ fields: [TypeField], in bytes: UnsafeRawBufferPointer, path: [PathStep], depth: Int,
        into references: inout [HeapReference]
    ) {
        for field in fields where field.type != 0 && field.offset >= 0 {
            let step = PathStep.field(name: field.name, type: field.type)
            guard field.isStrong else {
                // weak, unowned, unowned(unsafe): holds nothing alive.
                references.append(
                    HeapReference(
                        target: 0, strength: .notStrong, path: path + [step], declaredType: types.name(of: field.type)))
                continue
            }
            guard let shape = types.shape(of: field.type, memory: memory), !shape.isPOD,
                field.offset + shape.size <= bytes.count
            else { continue }
            let slice = UnsafeRawBufferPointer(rebasing: bytes[field.offset..<(field.offset + shape.size)])
            visitValue(shape, in: slice, path: path + [step], depth: depth + 1, into: &references)
        }
    }

    /// `any P`: the value is in the buffer when it fits, else in a box the buffer points to.
    private func visitOpaqueExistential(
        _ bytes: UnsafeRawBufferPointer, path: [PathStep], depth: Int,
        into references: inout [HeapReference]
    ) {
        let type = word(bytes, 3 * RuntimeLayout.word)
        guard bytes.count >= 4 * RuntimeLayout.word, type != 0 else { return }
        guard classifier.isTypeMetadata(type), let shape = types.shape(of: type, memory: memory) else {
            note("an existential whose dynamic type could not be read")
            return
        }
        guard !shape.isPOD else { return }
        if shape.isInline, shape.size <= 3 * RuntimeLayout.word {
            let slice = UnsafeRawBufferPointer(rebasing: bytes[0..<shape.size])
            visitValue(shape, in: slice, path: path, depth: depth + 1, into: &references)
        } else {
            visitBox(word(bytes, 0), path: path, depth: depth + 1, into: &references)
        }
    }

    // MARK: Enums

    /// The case an enum value is in (payload cases first), through the enum's `getEnumTag`
    /// witness called on a copy.
    func enumTag(_ shape: TypeShape, _ bytes: UnsafeRawBufferPointer) -> Int? {
        guard let witness = enumWitness(shape, RuntimeLayout.witnessGetEnumTag),
            let type = UnsafeRawPointer(bitPattern: shape.metadata)
        else { return nil }
        var copy = Array(bytes.prefix(shape.size))
        copy.append(contentsOf: [UInt8](repeating: 0, count: 16))
        let tag = copy.withUnsafeBytes { rdiag_swift_enum_tag(witness, $0.baseAddress!, type) }
        return Int(tag)
    }

    /// Runs `body` on the payload of an enum value in a payload case (the enum's
    /// `destructiveProjectEnumData` witness applied to a copy).
    func withProjectedPayload(
        _ shape: TypeShape, _ bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Void
    ) {
        guard let witness = enumWitness(shape, RuntimeLayout.witnessProjectEnumData),
            let type = UnsafeRawPointer(bitPattern: shape.metadata)
        else { return }
        var copy = Array(bytes.prefix(shape.size))
        copy.append(contentsOf: [UInt8](repeating: 0, count: 16))
        copy.withUnsafeMutableBytes { buffer in
            rdiag_swift_enum_project(witness, buffer.baseAddress!, type)
        }
        copy.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[0..<shape.size])) }
    }

    private func enumWitness(_ shape: TypeShape, _ offset: Int) -> UnsafeRawPointer? {
        guard shape.flags & RuntimeLayout.flagHasEnumWitnesses != 0,
            let witnesses = memory.word(at: shape.metadata &- UInt(RuntimeLayout.word)),
            let function = memory.word(at: witnesses &+ UInt(offset)), regions.isExecutable(function)
        else { return nil }
        return UnsafeRawPointer(bitPattern: function)
    }

    func word(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt {
        guard offset + RuntimeLayout.word <= bytes.count else { return 0 }
        return bytes.loadUnaligned(fromByteOffset: offset, as: UInt.self)
    }
}
