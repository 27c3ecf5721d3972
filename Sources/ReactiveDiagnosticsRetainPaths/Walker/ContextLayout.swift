import CReactiveDiagnostics
import _ReactiveDiagnosticsSupport

/// Where the captures of one closure context (or fixed-layout box) are, computed from its
/// capture descriptor the way Remote Mirror does: a header of `OffsetToFirstCapture` bytes,
/// the generic "necessary bindings" (one word each), then each capture at its type's
/// alignment.
struct ContextLayout {
    /// One capture.
    struct Capture {
        /// Position in the capture list (matches the closure's captured names).
        var index: Int
        var offset: Int
        var storage: Storage
    }

    /// How a capture holds what it holds.
    enum Storage {
        /// A value of a resolved type.
        case value(TypeShape)
        /// A box (a captured `var`): one strong reference to a heap box.
        case box
        /// `weak`, `unowned` or `unowned(unsafe)`: does not keep the object alive.
        case notStrong(MangledName.Storage, typeName: String)
        /// A lowered thick function: function pointer, then context.
        case thickFunction
    }

    /// The captures the walker could lay out, in order.
    var captures: [Capture]
    /// Number of captures the descriptor lists.
    var declaredCaptures: Int
    /// Where the captures the walker could not lay out begin (the rest of the context can only
    /// be scanned word by word), with the type that stopped it; `nil` when all were read.
    var unreadFrom: (offset: Int, reason: String)?
    /// Whether the layout depends on bindings read from one instance (a generic context): not
    /// cached.
    var dependsOnInstance: Bool
}

/// Reads context layouts, caching those that do not depend on the instance.
final class ContextLayoutReader: Sendable {
    static let shared = ContextLayoutReader()

    private let cache = LockedValue([UInt: ContextLayout]())

    /// The layout of the context `object` whose metadata is `metadata`; `nil` when the
    /// metadata has no capture descriptor (compiled without reflection metadata).
    func layout(
        of object: UInt, metadata: UInt, memory: ProcessMemory, types: TypeReader, classifier: ObjectClassifier
    ) -> ContextLayout? {
        if let cached = cache.withLock({ $0[metadata] }) {
            return cached
        }
        let read = read(object, metadata: metadata, memory: memory, types: types, classifier: classifier)
        memory.forgetPages()
        guard let layout = read else { return nil }
        if !layout.dependsOnInstance {
            cache.withLock { $0[metadata] = layout }
        }
        return layout
    }

    private struct Descriptor {
        var captureTypes: [UInt]
        var sources: [(type: UInt, source: UInt)]
        var bindings: Int
    }

    private func descriptor(_ metadata: UInt, memory: ProcessMemory) -> (offset: Int, Descriptor)? {
        guard let offset = memory.uint32(at: metadata &+ UInt(RuntimeLayout.contextOffsetToFirstCapture)),
            let address = memory.word(at: metadata &+ UInt(RuntimeLayout.contextCaptureDescriptor)), address != 0,
            let counts = memory.withBytes(
                at: address, count: RuntimeLayout.captureHeaderSize,
                { bytes in
                    (
                        bytes.load(as: UInt32.self), bytes.load(fromByteOffset: 4, as: UInt32.self),
                        bytes.load(fromByteOffset: 8, as: UInt32.self)
                    )
                }),
            counts.0 < 1024, counts.1 < 256, counts.2 < 256
        else { return nil }
        var cursor = address &+ UInt(RuntimeLayout.captureHeaderSize)
        var types: [UInt] = []
        for _ in 0..<counts.0 {
            guard let type = memory.relativePointer(at: cursor) else { return nil }
            types.append(type)
            cursor += 4
        }
        var sources: [(UInt, UInt)] = []
        for _ in 0..<counts.1 {
            guard let type = memory.relativePointer(at: cursor), let source = memory.relativePointer(at: cursor + 4)
            else {
                return nil
            }
            sources.append((type, source))
            cursor += 8
        }
        return (Int(offset), Descriptor(captureTypes: types, sources: sources, bindings: Int(counts.2)))
    }

    private func read(
        _ object: UInt, metadata: UInt, memory: ProcessMemory, types: TypeReader, classifier: ObjectClassifier
    ) -> ContextLayout? {
        guard let (firstCapture, descriptor) = descriptor(metadata, memory: memory) else { return nil }
        var offset = firstCapture + descriptor.bindings * RuntimeLayout.word
        var layout = ContextLayout(
            captures: [], declaredCaptures: descriptor.captureTypes.count, unreadFrom: nil,
            dependsOnInstance: false)
        let generic = GenericBindings(
            object: object, descriptor: descriptor.sources, bindings: descriptor.bindings, memory: memory,
            classifier: classifier)
        for (index, typeAddress) in descriptor.captureTypes.enumerated() {
            guard let name = MangledName(at: typeAddress, memory: memory) else {
                layout.unreadFrom = (offset, "an unreadable capture type")
                return layout
            }
            let storage: ContextLayout.Storage
            let size: Int
            let alignmentMask: Int
            switch name.storage {
            case .weak, .unowned, .unmanaged:
                storage = .notStrong(
                    name.storage,
                    typeName: referentName(name, memory: memory, types: types, regions: classifier.regions))
                (size, alignmentMask) = (RuntimeLayout.word, RuntimeLayout.word - 1)
            case .box:
                storage = .box
                (size, alignmentMask) = (RuntimeLayout.word, RuntimeLayout.word - 1)
            case .loweredFunction(let thick):
                storage = thick ? .thickFunction : .value(Self.plainWord)
                (size, alignmentMask) = ((thick ? 2 : 1) * RuntimeLayout.word, RuntimeLayout.word - 1)
            case .genericParameter(let depth, let position):
                layout.dependsOnInstance = true
                guard let type = generic.metadata(depth: depth, index: position),
                    let shape = types.shape(of: type, memory: memory)
                else {
                    layout.unreadFrom = (offset, "a generic capture")
                    return layout
                }
                storage = .value(shape)
                (size, alignmentMask) = (shape.size, shape.alignmentMask)
            case .value:
                guard !name.mayReferenceGenericParameters,
                    name.referencesResolve(memory: memory, regions: classifier.regions),
                    let pointer = UnsafePointer<CChar>(bitPattern: name.address),
                    let type = rdiag_swift_type_by_mangled_name(pointer, name.length, nil, nil),
                    let shape = types.shape(of: UInt(bitPattern: type), memory: memory)
                else {
                    layout.unreadFrom = (
                        offset,
                        name.mayReferenceGenericParameters
                            ? "a generic capture" : "a capture whose type could not be resolved"
                    )
                    return layout
                }
                storage = .value(shape)
                (size, alignmentMask) = (shape.size, shape.alignmentMask)
            }
            offset = (offset + alignmentMask) & ~alignmentMask
            layout.captures.append(ContextLayout.Capture(index: index, offset: offset, storage: storage))
            offset += size
        }
        return layout
    }

    /// The type a `weak`/`unowned` capture refers to (`Optional<FeedViewModel>` for a weak
    /// one), for display.
    private func referentName(
        _ name: MangledName, memory: ProcessMemory, types: TypeReader, regions: MemoryRegions
    ) -> String {
        let inner = MangledName(address: name.address, length: name.length - 2, text: Array(name.text.dropLast(2)))
        guard inner.length > 0, !inner.mayReferenceGenericParameters,
            inner.referencesResolve(memory: memory, regions: regions),
            let pointer = UnsafePointer<CChar>(bitPattern: inner.address),
            let type = rdiag_swift_type_by_mangled_name(pointer, inner.length, nil, nil)
        else { return "?" }
        return types.name(of: UInt(bitPattern: type))
    }

    /// A word without references (a thin function pointer).
    static let plainWord = TypeShape(
        metadata: 0, kind: .opaque, size: RuntimeLayout.word, alignmentMask: RuntimeLayout.word - 1, flags: 0,
        layout: .noReferences)
}

/// The metadata a generic closure context carries for its generic parameters, read through
/// its capture descriptor's metadata sources (only the closure-binding kind, `B<n>`: a
/// metadata pointer stored after the header).
struct GenericBindings {
    let object: UInt
    let descriptor: [(type: UInt, source: UInt)]
    let bindings: Int
    let memory: ProcessMemory
    let classifier: ObjectClassifier

    func metadata(depth: Int, index: Int) -> UInt? {
        for (typeAddress, sourceAddress) in descriptor {
            guard let type = MangledName(at: typeAddress, memory: memory), let parameter = type.genericParameter,
                parameter.depth == depth, parameter.index == index,
                let source = MangledName(at: sourceAddress, memory: memory),
                let binding = Self.closureBinding(source.text), binding < bindings,
                let metadata = memory.word(
                    at: object &+ UInt(RuntimeLayout.heapObjectSize + binding * RuntimeLayout.word)),
                classifier.isTypeMetadata(metadata)
            else { continue }
            return metadata
        }
        return nil
    }

    /// `B<digits>` (optionally `_`-terminated) → the binding's index.
    static func closureBinding(_ text: [UInt8]) -> Int? {
        guard text.first == UInt8(ascii: "B"), text.count >= 2 else { return nil }
        let digits = text.dropFirst().prefix { (48...57).contains($0) }
        guard !digits.isEmpty,
            text.count == 1 + digits.count || (text.count == 2 + digits.count && text.last == UInt8(ascii: "_"))
        else { return nil }
        return Int(String(decoding: digits, as: UTF8.self))
    }
}
