import ReactiveDiagnosticsReport

/// The walker's raw view of one object, for this package's tests: every reference it holds,
/// with the way to it and its strength, as text.
package enum RetainPathInspection {
    /// One line per reference `object` holds: `strength target-type <- path`.
    package static func references(of object: AnyObject) -> [String] {
        withExtendedLifetime(object) {
            let address = UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
            return references(ofAddress: address).lines
        }
    }

    /// The references of the object at `address` and the walker's notes.
    package static func references(ofAddress address: UInt) -> (lines: [String], notes: [String]) {
        let memory = ProcessMemory()
        let walker = HeapWalker(memory: memory, regions: MemoryRegions.current())
        guard let record = walker.record(of: address) else { return (["not an object"], walker.notes) }
        let types = TypeReader.shared
        let lines = record.references.map { reference -> String in
            let target: String
            if case .instance(let metadata)? = walker.classifier.classify(reference.target) {
                target = types.name(of: metadata)
            } else {
                target = reference.declaredType ?? (reference.target == 0 ? "-" : "?")
            }
            let path = reference.path.map { step -> String in
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
                    return "closure{\(facts.function) \(facts.category)\(facts.isGlue ? " glue" : "")}"
                case .capture(let index, let count, let type):
                    return "capture \(index)/\(count)" + (type == 0 ? "" : ": \(types.name(of: type))")
                case .untypedWord(let offset): return "word@\(offset)"
                }
            }.joined(separator: " ")
            return "\(reference.strength) \(target) <- \(path)"
        }
        return (lines, walker.notes)
    }
}
