import ReactiveDiagnosticsReport

/// The walker's raw view of one object, for this package's tests and fuzzers: every reference
/// it holds, with the way to it and its strength.
package enum RetainPathInspection {
    /// One reference found.
    package struct Reference: Sendable {
        /// The object referred to (0 for a weak reference, whose side table is not followed).
        package var target: UInt
        /// `strong`, `weak`, `unowned`, `notStrong` or `unknown`.
        package var strength: String
        /// The way to it, as text.
        package var path: String
    }

    /// The address of `object` (what ``Reference/target`` is compared with).
    package static func address(of object: AnyObject) -> UInt {
        UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
    }

    /// Every reference `object` holds, and what the walker could not read.
    package static func inspect(_ object: AnyObject) -> (references: [Reference], notes: [String]) {
        withExtendedLifetime(object) { inspect(address: address(of: object)) }
    }

    /// One line per reference `object` holds: `strength target-type <- path`.
    package static func references(of object: AnyObject) -> [String] {
        withExtendedLifetime(object) {
            let memory = ProcessMemory()
            let classifier = ObjectClassifier(memory: memory, regions: MemoryRegions.current())
            return inspect(address: address(of: object)).references.map { reference in
                var target = reference.target == 0 ? "-" : "?"
                if case .instance(let metadata)? = classifier.classify(reference.target) {
                    target = TypeReader.shared.name(of: metadata)
                }
                return "\(reference.strength) \(target) <- \(reference.path)"
            }
        }
    }

    package static func inspect(address: UInt) -> (references: [Reference], notes: [String]) {
        let walker = HeapWalker(memory: ProcessMemory(), regions: MemoryRegions.current())
        guard let record = walker.record(of: address) else { return ([], walker.notes + ["not an object"]) }
        let references = record.references.map { reference in
            Reference(
                target: reference.target, strength: "\(reference.strength)",
                path: reference.path.map(describe).joined(separator: " ")
                    + (reference.declaredType.map { " (\($0))" } ?? ""))
        }
        return (references, walker.notes)
    }

    private static func describe(_ step: PathStep) -> String {
        let types = TypeReader.shared
        switch step {
        case .field(let name, let type): return ".\(name): \(types.name(of: type))"
        case .element: return "[element]"
        case .key: return "[key]"
        case .value: return "[value]"
        case .payload(let name): return "(\(name))"
        case .existential: return "(existential)"
        case .box: return "(box)"
        case .closure(let function):
            let facts = ClosureSymbols.shared.facts(of: function)
            return "{\(facts.function)\(facts.isGlue ? ", glue" : "")}"
        case .capture(let index, let count, let type):
            return "capture \(index)/\(count)" + (type == 0 ? "" : ": \(types.name(of: type))")
        case .untypedWord(let offset): return "word@\(offset)"
        }
    }
}

extension RetainPathInspection {
    /// What the walker reads from a mangled type name written as text (symbolic references
    /// as `\u{1}`): its storage (`value`, `weak`, `box`, `thick function`…) and whether it may
    /// name a generic parameter.
    package static func mangledName(_ text: String) -> (storage: String, mayReferenceGenericParameters: Bool) {
        let name = MangledName(address: 0, length: text.utf8.count, text: Array(text.utf8))
        let storage: String
        switch name.storage {
        case .value: storage = "value"
        case .weak: storage = "weak"
        case .unowned: storage = "unowned"
        case .unmanaged: storage = "unmanaged"
        case .box: storage = "box"
        case .loweredFunction(let thick): storage = thick ? "thick function" : "thin function"
        case .genericParameter(let depth, let index): storage = "generic parameter \(depth) \(index)"
        }
        return (storage, name.mayReferenceGenericParameters)
    }

    /// The mappings as the walker reads them from `maps` (the `/proc/PID/maps` format): start,
    /// end, `rwx` flags, the path and the image each belongs to.
    package static func memoryRegions(
        parsing maps: String
    ) -> [(
        start: UInt, end: UInt, permissions: String, path: String?, image: String?
    )] {
        describe(MemoryRegions(parsing: maps))
    }

    /// The process's mappings now, as an explanation reads them (reused while `/proc/self/maps`
    /// reads the same).
    package static func currentMemoryRegions() -> [(
        start: UInt, end: UInt, permissions: String, path: String?, image: String?
    )] {
        describe(MemoryRegions.current())
    }

    private static func describe(
        _ regions: MemoryRegions
    ) -> [(start: UInt, end: UInt, permissions: String, path: String?, image: String?)] {
        regions.regions.map {
            (
                $0.start, $0.end, ($0.readable ? "r" : "-") + ($0.writable ? "w" : "-") + ($0.executable ? "x" : "-"),
                $0.path, $0.image
            )
        }
    }
}

extension RetainPathInspection {
    /// Whether the walker would hand the mangled name at `address` to the runtime: only when
    /// every symbolic reference in it points into a loaded image.
    package static func nameMayBeResolved(at address: UInt) -> Bool {
        let memory = ProcessMemory()
        guard let name = MangledName(at: address, memory: memory) else { return false }
        return name.referencesResolve(memory: memory, regions: MemoryRegions.current())
    }

    /// The heap objects a holder scan (the search for what holds a leaked subscription from
    /// outside) finds holding `object`, by address, after the same walk has read each of
    /// `read` first, as an explanation reads the objects around the subscription before it
    /// scans.
    package static func holders(of object: AnyObject, afterReading read: [AnyObject] = []) -> [UInt] {
        withExtendedLifetime((object, read)) {
            let walker = HeapWalker(memory: ProcessMemory(), regions: MemoryRegions.current())
            // Twice: the first read may call into the runtime for the types, which drops
            // the pages kept so far; the second keeps them, as a walk deep in a heap does.
            for other in read + read {
                _ = walker.record(of: address(of: other))
            }
            var scan = HolderScan(walker: walker, deadline: .now.advanced(by: .seconds(10)))
            let target = address(of: object)
            return (scan.holders(of: [target])[target] ?? []).compactMap { holder in
                if case .object(let address) = holder { return address }
                return nil
            }
        }
    }

    /// What each of `levels` scans of one search that keeps its copy of memory finds holding
    /// `object` (``HolderScan/keepsCopy``: the first scan copies memory, the next ones scan
    /// the copy).
    package static func holdersAtEachLevel(of object: AnyObject, levels: Int) -> [[UInt]] {
        withExtendedLifetime(object) {
            let walker = HeapWalker(memory: ProcessMemory(), regions: MemoryRegions.current())
            var scan = HolderScan(walker: walker, deadline: .now.advanced(by: .seconds(10)), keepsCopy: true)
            let target = address(of: object)
            return (0..<levels).map { _ in
                (scan.holders(of: [target])[target] ?? []).compactMap { holder in
                    if case .object(let address) = holder { return address }
                    return nil
                }
            }
        }
    }

    /// Runs `body` while another search keeps its copy of memory (taken after `object` was
    /// made), as when two tests explain leaks at the same time.
    package static func whileAnotherSearchKeepsACopy<Result>(of object: AnyObject, _ body: () -> Result) -> Result {
        withExtendedLifetime(object) {
            let walker = HeapWalker(memory: ProcessMemory(), regions: MemoryRegions.current())
            var scan = HolderScan(walker: walker, deadline: .now.advanced(by: .seconds(10)), keepsCopy: true)
            _ = scan.holders(of: [address(of: object)])
            return withExtendedLifetime(scan) { body() }
        }
    }

    /// Runs `body` while another walk that has read each of `read` is still under way (its
    /// copies of their memory alive), as when two tests explain leaks at the same time.
    package static func whileAnotherWalkHasRead<Result>(_ read: [AnyObject], _ body: () -> Result) -> Result {
        withExtendedLifetime(read) {
            let walker = HeapWalker(memory: ProcessMemory(), regions: MemoryRegions.current())
            // Twice: the first read may call into the runtime for the types, which drops
            // the pages kept so far; the second keeps them, as a walk deep in a heap does.
            for other in read + read {
                _ = walker.record(of: address(of: other))
            }
            return withExtendedLifetime(walker) { body() }
        }
    }

    /// Whether the walk believes the context descriptor at `address` may be named by the
    /// runtime (``ObjectClassifier/isNameableDescriptor(_:)``).
    package static func descriptorMayBeNamed(at address: UInt) -> Bool {
        let memory = ProcessMemory()
        return ObjectClassifier(memory: memory, regions: MemoryRegions.current()).isNameableDescriptor(address)
    }

    /// The nominal type descriptor in the metadata of `type` (a class, struct or enum).
    package static func descriptor(of type: Any.Type) -> UInt? {
        let metadata = unsafeBitCast(type, to: UInt.self)
        let memory = ProcessMemory()
        let offset = type is AnyClass ? RuntimeLayout.classDescription : RuntimeLayout.word
        return memory.word(at: metadata &+ UInt(offset))
    }

    /// Whether the allocator keeps glibc's size word before each allocation: then the holder
    /// scan places each hit in the allocation that contains it; without them (a sanitizer's
    /// allocator) it takes the nearest object start below a hit, a guess that can name an
    /// object that does not hold the target (a closure context on a thread's stack, say).
    package static var allocatorHasChunkHeaders: Bool { HeapWalker.allocatorHasChunkHeaders }

    /// Whether the holder scan knows which allocation contains each hit: from glibc's chunk
    /// headers, or from a sanitizer's runtime. Only without either are object starts guessed.
    package static var allocationsAreKnown: Bool {
        HeapWalker.allocatorHasChunkHeaders || HeapWalker.sanitizerKnowsAllocations
    }
}
