/// Lists the references a heap object holds, typed through Swift's reflection metadata:
/// stored properties of class instances, captures of closure contexts (the closures a
/// subscriber holds), and, inline, everything values hold (structs, enums, existentials,
/// boxes, arrays, sets, dictionaries, nested closures).
///
/// Every read is fault-free (``ProcessMemory``); nothing is retained, released or called but
/// the runtime's metadata functions on validated metadata and enum witnesses on private
/// copies. What is not understood ends its branch, with a note saying what it was.
final class HeapWalker {
    /// An object and what it holds.
    struct ObjectRecord {
        enum Kind {
            case instance(metadata: UInt)
            case context
            case other(String)
        }

        var kind: Kind
        var references: [HeapReference]
    }

    let memory: ProcessMemory
    let regions: MemoryRegions
    let types: TypeReader
    let contexts: ContextLayoutReader
    let classifier: ObjectClassifier
    /// Objects reported as references wherever they are met, never expanded inline (the
    /// anchor of a search, when it is a closure context).
    var stopAt: Set<UInt> = []
    /// Elements of one collection read at most.
    var elementLimit = 4096
    /// Nesting of values, boxes and closures inside one object read at most.
    var depthLimit = 24
    /// What the walker met but could not read.
    private(set) var notes: [String] = []
    /// Values and objects read so far (the walk's work).
    var steps = 0
    private var expanding: Set<UInt> = []

    init(
        memory: ProcessMemory, regions: MemoryRegions, types: TypeReader = .shared,
        contexts: ContextLayoutReader = .shared
    ) {
        self.memory = memory
        self.regions = regions
        self.types = types
        self.contexts = contexts
        classifier = ObjectClassifier(memory: memory, regions: regions)
    }

    /// Runs `body` without keeping what it notes (reads that only check a guess, like the
    /// objects around a word a memory scan found).
    func quietly<Result>(_ body: () -> Result) -> Result {
        let kept = notes
        defer { notes = kept }
        return body()
    }

    func note(_ text: String) {
        if notes.count < 16, !notes.contains(text) {
            notes.append(text)
        }
    }

    // MARK: Objects

    /// What the heap object at `address` holds; `nil` when it is not one.
    func record(of address: UInt) -> ObjectRecord? {
        guard let object = classifier.classify(address) else { return nil }
        steps += 1
        var references: [HeapReference] = []
        switch object {
        case .instance(let metadata):
            guard let info = types.classInfo(metadata, memory: memory),
                let bytes = memory.bytes(at: address, count: info.instanceSize)
            else {
                note("an instance of \(types.name(of: metadata)) that could not be read")
                return ObjectRecord(kind: .instance(metadata: metadata), references: [])
            }
            bytes.withUnsafeBytes { buffer in
                visitFields(info.fields, in: buffer, path: [], depth: 0, into: &references)
            }
            if let storage = info.storage {
                visitStorage(address, kind: storage, metadata: metadata, into: &references)
            }
            return ObjectRecord(kind: .instance(metadata: metadata), references: references)
        case .context(let metadata):
            visitContext(address, metadata: metadata, path: [], depth: 0, into: &references)
            return ObjectRecord(kind: .context, references: references)
        case .genericBox(let offset, let type):
            visitBoxValue(address, offset: offset, type: type, path: [], depth: 0, into: &references)
            return ObjectRecord(kind: .context, references: references)
        case .other(let what):
            return ObjectRecord(kind: .other(what), references: [])
        }
    }

    /// Reports `address` as a reference: a class instance is a node of the graph; a closure
    /// context or box met through an untyped word is read inline.
    func visitObject(
        _ address: UInt, strength: HeapReference.Strength, path: [PathStep], depth: Int,
        into references: inout [HeapReference]
    ) {
        guard address != 0 else { return }
        if stopAt.contains(address) {
            references.append(HeapReference(target: address, strength: strength, path: path))
            return
        }
        switch classifier.classify(address) {
        case .instance(let metadata)?:
            if strength == .strong,
                visitStorageInline(
                    address, metadata: metadata, path: path, depth: depth,
                    into: &references)
            {
                return
            }
            references.append(HeapReference(target: address, strength: strength, path: path))
        case .context(let metadata)?:
            visitContext(address, metadata: metadata, path: path, depth: depth + 1, into: &references)
        case .genericBox(let offset, let type)?:
            visitBoxValue(address, offset: offset, type: type, path: path + [.box], depth: depth + 1, into: &references)
        case .other(let what)?:
            note(what)
        case nil:
            if strength != .unknown {
                note("a reference the walker could not read")
            }
        }
    }

    /// Reads a collection's storage object as the value it is part of; `false` when the
    /// object is not collection storage.
    private func visitStorageInline(
        _ address: UInt, metadata: UInt, path: [PathStep], depth: Int,
        into references: inout [HeapReference]
    ) -> Bool {
        guard let storage = types.classInfo(metadata, memory: memory)?.storage, depth < depthLimit else { return false }
        visitStorage(address, kind: storage, metadata: metadata, path: path, depth: depth + 1, into: &references)
        return true
    }

    // MARK: Closures and boxes

    /// A Swift closure value: its context holds its captures.
    func visitFunction(
        _ function: UInt, context: UInt, path: [PathStep], depth: Int,
        into references: inout [HeapReference]
    ) {
        guard function != 0, context != 0, depth < depthLimit else { return }
        let path = path + [.closure(function: function)]
        if stopAt.contains(context) {
            references.append(HeapReference(target: context, strength: .strong, path: path))
            return
        }
        switch classifier.classify(context) {
        case .instance(let metadata)?:
            // A closure whose only capture is one object uses that object as its context; an
            // array (or set, or dictionary) is its storage object.
            if visitStorageInline(context, metadata: metadata, path: path, depth: depth, into: &references) {
                return
            }
            references.append(HeapReference(target: context, strength: .strong, path: path))
        case .context(let metadata)?:
            visitContext(context, metadata: metadata, path: path, depth: depth + 1, into: &references)
        case .genericBox(let offset, let type)?:
            visitBoxValue(context, offset: offset, type: type, path: path, depth: depth + 1, into: &references)
        case .other(let what)?:
            note("a closure whose context is \(what)")
        case nil:
            note("a closure whose context could not be read")
        }
    }

    /// The captures of a closure context (or the value of a fixed-layout box).
    func visitContext(
        _ context: UInt, metadata: UInt, path: [PathStep], depth: Int,
        into references: inout [HeapReference]
    ) {
        guard depth < depthLimit, expanding.insert(context).inserted else { return }
        defer { expanding.remove(context) }
        steps += 1
        guard
            let layout = contexts.layout(
                of: context, metadata: metadata, memory: memory, types: types, classifier: classifier)
        else {
            let scanned = scanUntyped(
                context, from: RuntimeLayout.heapObjectSize, path: path, depth: depth, into: &references)
            note(
                "a closure compiled without reflection metadata"
                    + (scanned ? " (scanned word by word)" : " (not scanned: its size is unknown)"))
            return
        }
        if layout.declaredCaptures == 1, let capture = layout.captures.first, case .value(let shape) = capture.storage,
            shape.isSingleReference
        {
            // The compiler shares one box metadata among all boxes of a single reference, with
            // the capture descriptor of whichever type made it first: the word is a strong
            // reference, and what it refers to says what it is.
            if let object = memory.word(at: context &+ UInt(capture.offset)) {
                visitObject(
                    object, strength: .strong, path: path + [.capture(index: 0, of: 1, type: 0)], depth: depth + 1,
                    into: &references)
            }
            return
        }
        for capture in layout.captures {
            let address = context &+ UInt(capture.offset)
            let step = PathStep.capture(
                index: capture.index, of: layout.declaredCaptures, type: Self.captureType(capture.storage))
            switch capture.storage {
            case .value(let shape):
                guard !shape.isPOD else { continue }
                guard let bytes = memory.bytes(at: address, count: shape.size) else { continue }
                bytes.withUnsafeBytes { buffer in
                    visitValue(shape, in: buffer, path: path + [step], depth: depth + 1, into: &references)
                }
            case .box:
                guard let box = memory.word(at: address) else { continue }
                visitBox(box, path: path + [step], depth: depth + 1, into: &references)
            case .notStrong(let storage, let typeName):
                references.append(
                    HeapReference(
                        target: 0, strength: storage == .weak ? .weak : .unowned, path: path + [step],
                        declaredType: typeName))
            case .thickFunction:
                guard let function = memory.word(at: address),
                    let innerContext = memory.word(at: address &+ UInt(RuntimeLayout.word))
                else { continue }
                visitFunction(function, context: innerContext, path: path + [step], depth: depth + 1, into: &references)
            }
        }
        if let unread = layout.unreadFrom {
            let scanned = scanUntyped(context, from: unread.offset, path: path, depth: depth, into: &references)
            note(
                "\(unread.reason): the rest of the closure "
                    + (scanned ? "was scanned word by word" : "could not be read (its size is unknown)"))
        }
    }

    private static func captureType(_ storage: ContextLayout.Storage) -> UInt {
        if case .value(let shape) = storage {
            return shape.metadata
        }
        return 0
    }

    /// A box (a captured `var`, an `indirect` payload, an existential's outline storage).
    func visitBox(_ box: UInt, path: [PathStep], depth: Int, into references: inout [HeapReference]) {
        guard box != 0, depth < depthLimit else { return }
        if stopAt.contains(box) {
            references.append(HeapReference(target: box, strength: .strong, path: path))
            return
        }
        switch classifier.classify(box) {
        case .context(let metadata)?:
            visitContext(box, metadata: metadata, path: path + [.box], depth: depth + 1, into: &references)
        case .genericBox(let offset, let type)?:
            visitBoxValue(box, offset: offset, type: type, path: path + [.box], depth: depth + 1, into: &references)
        case .instance?:
            references.append(HeapReference(target: box, strength: .strong, path: path))
        default:
            note("a box that could not be read")
        }
    }

    /// The value in a box made by `swift_allocBox`.
    func visitBoxValue(
        _ box: UInt, offset: Int, type: UInt, path: [PathStep], depth: Int,
        into references: inout [HeapReference]
    ) {
        guard let shape = types.shape(of: type, memory: memory),
            let bytes = memory.bytes(at: box &+ UInt(offset), count: shape.size)
        else {
            note("a box whose value could not be read")
            return
        }
        bytes.withUnsafeBytes { buffer in
            visitValue(shape, in: buffer, path: path, depth: depth, into: &references)
        }
    }
}
