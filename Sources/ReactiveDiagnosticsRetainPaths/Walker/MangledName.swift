/// A mangled type name in a loaded image (a capture or field record's type), read without
/// trusting it: its length (skipping the relative symbolic references it may contain), and the
/// few operators the walker must recognize itself because the runtime does not build metadata
/// for them (reference storage, SIL boxes, lowered function types, generic parameters).
struct MangledName {
    /// The name's first byte, in place (symbolic references are relative to it).
    let address: UInt
    /// Its length in bytes.
    let length: Int
    /// The name with every symbolic reference replaced by one `\u{1}`: enough to read the
    /// operators around them.
    let text: [UInt8]

    /// Names longer than this are not believed.
    static let maximumLength = 4096

    /// Reads the name at `address`; `nil` when it is unreadable or implausibly long.
    init?(at address: UInt, memory: ProcessMemory) {
        var text: [UInt8] = []
        var cursor = address
        while true {
            guard cursor &- address < UInt(Self.maximumLength),
                let byte = memory.withBytes(at: cursor, count: 1, { $0[0] })
            else { return nil }
            switch byte {
            case 0:
                self.address = address
                self.length = Int(cursor - address)
                self.text = text
                return
            case 0x01...0x17:
                text.append(1)
                cursor &+= 5
            case 0x18...0x1F:
                text.append(1)
                cursor &+= 1 &+ UInt(MemoryLayout<UInt>.size)
            default:
                text.append(byte)
                cursor &+= 1
            }
        }
    }

    /// Whether every symbolic reference in the name points into a loaded image (and, for an
    /// indirect one, at a pointer into an image): only then may the runtime be asked to resolve
    /// it. The runtime follows those relative offsets without checking them, so a name read from
    /// bytes that only look like one (an object misread at a checkpoint while other threads run)
    /// would send it to arbitrary memory.
    func referencesResolve(memory: ProcessMemory, regions: MemoryRegions) -> Bool {
        var cursor = address
        let end = address &+ UInt(length)
        while cursor < end {
            guard let byte = memory.withBytes(at: cursor, count: 1, { $0[0] }) else { return false }
            switch byte {
            case 0x01...0x17:
                guard let target = memory.relativePointer(at: cursor &+ 1), regions.isInImage(target) else {
                    return false
                }
                if byte == Self.indirectContextDescriptor {
                    guard let pointee = memory.word(at: target), regions.isInImage(pointee) else { return false }
                }
                cursor &+= 5
            case 0x18...0x1F:
                guard let target = memory.word(at: cursor &+ 1), regions.isInImage(target) else { return false }
                cursor &+= 1 &+ UInt(MemoryLayout<UInt>.size)
            default:
                cursor &+= 1
            }
        }
        return true
    }

    /// The symbolic reference kind whose offset leads to a pointer to a context descriptor.
    static let indirectContextDescriptor: UInt8 = 0x02

    init(address: UInt, length: Int, text: [UInt8]) {
        self.address = address
        self.length = length
        self.text = text
    }

    /// How a captured or stored value is held, read from the name's final operator.
    enum Storage: Equatable {
        /// A plain value of the type the name denotes.
        case value
        /// `weak` (`Xw`): a weak reference, which does not keep its object alive.
        case weak
        /// `unowned` (`Xo`): does not keep its object alive either.
        case unowned
        /// `unowned(unsafe)` (`Xu`): a raw pointer.
        case unmanaged
        /// A SIL box (`Xb`, `Xx`, `XX`): the heap box of a captured `var` or an `indirect` payload.
        case box
        /// A lowered function type (`I…_`): `thick` when it carries a context.
        case loweredFunction(thick: Bool)
        /// A generic parameter (`x`, `q_`, `qd__`…) at depth and index.
        case genericParameter(depth: Int, index: Int)
    }

    /// The storage the name's final operator says.
    var storage: Storage {
        if let parameter = genericParameter {
            return .genericParameter(depth: parameter.depth, index: parameter.index)
        }
        guard text.count >= 2 else { return .value }
        let last = text[text.count - 1]
        if text[text.count - 2] == UInt8(ascii: "X") {
            switch last {
            case UInt8(ascii: "w"): return .weak
            case UInt8(ascii: "o"): return .unowned
            case UInt8(ascii: "u"): return .unmanaged
            case UInt8(ascii: "b"), UInt8(ascii: "x"), UInt8(ascii: "X"): return .box
            default: break
            }
        }
        if last == UInt8(ascii: "_"), let thick = loweredFunctionIsThick {
            return .loweredFunction(thick: thick)
        }
        // An Optional of a lowered function (`…I…_Sg`, a captured optional closure): the same
        // words, `none` being a null function pointer, which no visit follows.
        if text.count > 2, text.suffix(2).elementsEqual("Sg".utf8) {
            let wrapped = MangledName(address: address, length: length - 2, text: Array(text.dropLast(2)))
            if case .loweredFunction(let thick) = wrapped.storage {
                return .loweredFunction(thick: thick)
            }
        }
        return .value
    }

    /// The whole name, when it is exactly one generic parameter.
    var genericParameter: (depth: Int, index: Int)? {
        let characters = text.map { Character(Unicode.Scalar($0)) }
        if characters == ["x"] { return (0, 0) }
        guard characters.first == "q", characters.count >= 2 else { return nil }
        var rest = characters.dropFirst()
        func index() -> Int? {
            if rest.first == "_" {
                rest = rest.dropFirst()
                return 0
            }
            let digits = rest.prefix { $0.isNumber }
            guard !digits.isEmpty, let value = Int(String(digits)) else { return nil }
            rest = rest.dropFirst(digits.count)
            guard rest.first == "_" else { return nil }
            rest = rest.dropFirst()
            return value + 1
        }
        if rest == ["z"] { return (0, 0) }
        if rest.first == "d" {
            rest = rest.dropFirst()
            guard let depth = index(), let position = index(), rest.isEmpty else { return nil }
            return (depth + 1, position)
        }
        guard let position = index(), rest.isEmpty else { return nil }
        return (0, position + 1)
    }

    /// For a lowered (SIL) function type `… I <attributes> _`: whether it is thick (a
    /// `@callee_guaranteed`, `@callee_owned` or `@callee_unowned` Swift function, which
    /// carries a context); `nil` when the name is not one.
    var loweredFunctionIsThick: Bool? {
        guard text.last == UInt8(ascii: "_"),
            let operatorIndex = text.dropLast().lastIndex(of: UInt8(ascii: "I"))
        else { return nil }
        let attributes = text[(operatorIndex + 1)..<(text.count - 1)]
        guard !attributes.isEmpty, attributes.allSatisfy({ (65...90).contains($0) || (97...122).contains($0) }) else {
            return nil
        }
        // Optional pattern and invocation substitutions, pseudo-generic, escaping and
        // differentiability markers come before the callee convention.
        let skipped: Set<UInt8> = Set("sIPedlfr".utf8)
        guard let callee = attributes.first(where: { !skipped.contains($0) }) else { return nil }
        let representation = attributes.drop { $0 != callee }.dropFirst().first
        switch callee {
        case UInt8(ascii: "y"), UInt8(ascii: "g"), UInt8(ascii: "x"):
            if let representation, Set("BCzMOWK".utf8).contains(representation) {
                return false
            }
            return true
        case UInt8(ascii: "t"):
            return false
        default:
            return nil
        }
    }

    /// Whether the name may refer to a generic parameter (`x`, `q…`) or one of its associated
    /// types (`Q…`). Such a name must not be handed to the runtime without the generic
    /// arguments: resolving a dependent member type without them aborts the process.
    ///
    /// Identifiers (a length, then that many characters) are skipped; everything else counts,
    /// so an identifier the scan mistakes for an index makes the answer `true` (the capture is
    /// then scanned untyped), never `false` for a name that has a parameter.
    var mayReferenceGenericParameters: Bool {
        let indexOperators = Set("qAYydLifvSRrlzXT".utf8)
        var index = 0
        while index < text.count {
            let byte = text[index]
            if byte == UInt8(ascii: "x") || byte == UInt8(ascii: "q") || byte == UInt8(ascii: "Q") {
                return true
            }
            if (49...57).contains(byte), index == 0 || !indexOperators.contains(text[index - 1]) {
                // An identifier: its length, then its characters.
                var end = index
                var length = 0
                while end < text.count, (48...57).contains(text[end]), length < 1 << 16 {
                    length = length * 10 + Int(text[end] - 48)
                    end += 1
                }
                let characters = text[end..<min(text.count, end + length)]
                if characters.contains(1) {
                    return true
                }
                index = end + length
                continue
            }
            index += 1
        }
        return false
    }
}
