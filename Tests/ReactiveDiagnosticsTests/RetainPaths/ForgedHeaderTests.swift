import ReactiveDiagnostics
import Testing
import ReactiveDiagnosticsRetainPaths

/// Words the retain-path walk meets at a checkpoint while other threads still run: a freed
/// object's memory, another thread's stack, a hit of the holder scan read as the start of an
/// object. Whatever they look like, the walker must never hand the runtime a type name (or
/// metadata) it did not find in a loaded image: the runtime follows them without checking,
/// and a wrong one ends the process.
@Suite struct ForgedHeaderTests {
    /// Heap memory laid out as a closure context whose metadata is heap memory too, with the
    /// closure-context kind and a plausible first-capture offset. The compiler emits every
    /// context's metadata in its image, so this is not an object.
    @Test func aContextWhoseMetadataIsNotInAnImageIsNotBelieved() {
        let metadata = UnsafeMutablePointer<UInt>.allocate(capacity: 8)
        metadata.initialize(repeating: 0, count: 8)
        metadata[0] = 0x400  // MetadataKind.heapLocalVariable
        metadata[1] = 16  // offset to the first capture
        metadata[2] = 0  // no capture descriptor
        let object = UnsafeMutablePointer<UInt>.allocate(capacity: 8)
        object.initialize(repeating: 0, count: 8)
        object[0] = UInt(bitPattern: metadata)  // the header's metadata word
        object[1] = 0  // reference counts: live, not deinitializing
        defer {
            object.deallocate()
            metadata.deallocate()
        }
        let inspected = RetainPathInspection.inspect(address: UInt(bitPattern: object))
        #expect(inspected.references.isEmpty)
        #expect(inspected.notes.contains("not an object"), "\(inspected.notes)")
    }

    /// Heap memory laid out as a box of a tuple whose one element's "type" is a word that
    /// points nowhere: the tuple is not type metadata the runtime may be asked about, so
    /// neither is the box an object.
    @Test func aBoxOfAForgedTupleIsNotBelieved() {
        let witnesses = UnsafeMutablePointer<UInt>.allocate(capacity: 16)
        witnesses.initialize(repeating: 0, count: 16)
        let tuple = UnsafeMutablePointer<UInt>.allocate(capacity: 8)  // [witnesses, kind, count, labels, type, offset]
        tuple.initialize(repeating: 0, count: 8)
        tuple[0] = UInt(bitPattern: witnesses)
        tuple[1] = 0x301  // MetadataKind.tuple
        tuple[2] = 1  // one element…
        tuple[4] = 0xdead_0000  // …whose type is not metadata
        let box = UnsafeMutablePointer<UInt>.allocate(capacity: 4)
        box.initialize(repeating: 0, count: 4)
        box[0] = 0x500  // MetadataKind.heapGenericLocalVariable
        box[1] = 16  // the value's offset
        box[2] = UInt(bitPattern: tuple + 1)  // the value's type
        let object = UnsafeMutablePointer<UInt>.allocate(capacity: 8)
        object.initialize(repeating: 0, count: 8)
        object[0] = UInt(bitPattern: box)
        defer {
            object.deallocate()
            box.deallocate()
            tuple.deallocate()
            witnesses.deallocate()
        }
        let inspected = RetainPathInspection.inspect(address: UInt(bitPattern: object))
        #expect(inspected.notes.contains("not an object"), "\(inspected.notes)")
    }

    /// A name whose symbolic reference points at heap memory (not at a descriptor in an
    /// image) is never resolved; a plain name is.
    @Test func aNameWhoseSymbolicReferenceLeavesTheImagesIsNotResolved() {
        let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: 16)
        bytes.initialize(repeating: 0, count: 16)
        defer { bytes.deallocate() }
        bytes[0] = 0x01  // a direct context descriptor reference…
        withUnsafeBytes(of: Int32(8).littleEndian) { offset in  // …to bytes + 9: the heap
            for index in 0..<4 { bytes[1 + index] = offset[index] }
        }
        bytes[5] = UInt8(ascii: "S")
        bytes[6] = UInt8(ascii: "g")  // Optional of it
        #expect(!RetainPathInspection.nameMayBeResolved(at: UInt(bitPattern: bytes)))

        let plain = Array("SaySSG".utf8) + [0]  // [String]
        plain.withUnsafeBufferPointer { buffer in
            #expect(RetainPathInspection.nameMayBeResolved(at: UInt(bitPattern: buffer.baseAddress!)))
        }
    }

    final class Plain {}
    private final class Hidden {}
    final class Generic<Value> { var value: Value? }
    struct Value { var object: Plain }
    enum Choice {
        case one(Plain)
        case two
    }

    /// Real types' descriptors, nested, private and generic ones included, lead up to their
    /// module: the runtime may name them.
    @Test func realDescriptorsMayBeNamed() throws {
        for type in [Plain.self, Hidden.self, Generic<Int>.self, Value.self, Choice.self, Set<Int>.self] as [Any.Type] {
            let descriptor = try #require(RetainPathInspection.descriptor(of: type))
            #expect(RetainPathInspection.descriptorMayBeNamed(at: descriptor), "\(type)")
        }
    }

    /// A class descriptor laid out in heap memory (kind class, a parent and a name pointing
    /// near it): not in an image, so never handed to the runtime, whose naming of a type walks
    /// the descriptor's parents without checking them (a holder scan's guess at an object
    /// start once crashed there, in `swift_getTypeName`).
    @Test func aDescriptorOutsideTheImagesIsNotNamed() {
        let forged = UnsafeMutablePointer<UInt32>.allocate(capacity: 16)
        forged.initialize(repeating: 0, count: 16)
        forged[0] = 16  // kind: class
        forged[1] = 16  // parent: 16 bytes on…
        forged[2] = 8  // name: …and 8 bytes on
        forged[4] = 0  // the "parent": kind module
        defer { forged.deallocate() }
        #expect(!RetainPathInspection.descriptorMayBeNamed(at: UInt(bitPattern: forged)))
    }
}
