#if RxSwift  // the package trait RxSwift (Package.swift): without it, this module is empty
/// The heap object behind an array's elements: what lives exactly as long as every copy of
/// the array does.
///
/// An `Array` of a class-free element type is one reference to its storage object (a native
/// `_ContiguousArrayStorage`), so the reference can be read without copying anything. The
/// layout is the standard library's, not API: ``isSupported`` checks it once, at run time,
/// and where it does not hold, callers do without (the RxSwift hook then counts nothing).
enum ArrayStorage {
    /// Whether arrays look as expected here: one reference, to an object that holds the
    /// elements just past its header and is freed with the last copy of the array.
    static let isSupported: Bool = checkLayout()

    /// The storage object of `array`; `nil` for an empty array (its storage is a shared
    /// immortal object) or where ``isSupported`` is false.
    @inline(__always)
    static func object(of array: [String]) -> AnyObject? {
        guard isSupported, !array.isEmpty else { return nil }
        return unsafeBitCast(array, to: AnyObject.self)
    }

    /// The array whose storage is `object` (an object ``object(of:)`` returned, now owned by
    /// the caller and referenced by nothing else).
    @inline(__always)
    static func array(ofStorage object: AnyObject) -> [String] {
        unsafeBitCast(object, to: [String].self)
    }

    /// A one-element array with storage of its own, allocated now (never a shared or static
    /// object the optimizer could have made of a constant).
    @inline(never)
    static func unique(_ element: String) -> [String] {
        [String](unsafeUninitializedCapacity: 1) { buffer, count in
            buffer.initializeElement(at: 0, to: element)
            count = 1
        }
    }

    private struct WeakObject {
        weak var object: AnyObject?
    }

    private static func checkLayout() -> Bool {
        guard MemoryLayout<[String]>.size == MemoryLayout<AnyObject>.size else { return false }
        var probe = WeakObject()
        guard storageHoldsElements(recordingIn: &probe) else { return false }
        // Every copy is gone: the storage must be gone too.
        return probe.object == nil
    }

    @inline(never)
    private static func storageHoldsElements(recordingIn probe: inout WeakObject) -> Bool {
        let array = unique("probe")
        let object = unsafeBitCast(array, to: AnyObject.self)
        probe.object = object
        let objectAddress = UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
        let elements = array.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        return elements > objectAddress && elements - objectAddress <= 64
    }
}
#endif
