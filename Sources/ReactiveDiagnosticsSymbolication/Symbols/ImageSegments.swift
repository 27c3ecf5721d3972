import CReactiveDiagnostics

/// The images of the process by address range, learnt as addresses are looked up: the first
/// address in a loaded segment asks the loader (`dl_iterate_phdr`, a walk of every image), every
/// later one is a binary search. Cheap enough for the thread that makes a finding, which writes
/// its stacks as image and offset and leaves naming them for later.
///
/// Not synchronized: its owner keeps it under its own lock.
///
/// ```swift
/// var segments = ImageSegments()
/// if let (image, offset) = segments.image(ofReturnAddress: address) {
///     print(image.path, String(offset, radix: 16))
/// }
/// ```
package struct ImageSegments: Sendable {
    private struct Segment: Sendable {
        var start: UInt
        var end: UInt
        var image: Int
    }

    /// Segments learnt so far, sorted by start.
    private var segments: [Segment] = []
    /// Images learnt so far; segments refer to them by index.
    package private(set) var images: [ImageOfAddress] = []

    package init() {}

    /// The image holding the call that `address` returns to, and `address` relative to that
    /// image's load bias (what `llvm-symbolizer --obj=IMAGE OFFSET` expects, as in
    /// ``ProcedureSymbol``), or `nil` when no loaded image maps it.
    package mutating func image(ofReturnAddress returnAddress: UInt) -> (image: ImageOfAddress, offset: UInt)? {
        guard returnAddress > 0,
            let found = image(of: returnAddress - 1)
        else { return nil }
        return (found.image, found.offset &+ 1)
    }

    /// The image mapping `address` and the address relative to its load bias, or `nil` when no
    /// loaded image maps it.
    package mutating func image(of address: UInt) -> (image: ImageOfAddress, offset: UInt)? {
        if let index = segmentIndex(of: address) {
            let image = images[segments[index].image]
            return (image, address &- image.bias)
        }
        guard let learnt = Self.segment(of: address) else { return nil }
        let imageIndex = images.firstIndex(of: learnt.image) ?? images.count
        if imageIndex == images.count {
            images.append(learnt.image)
        }
        let insertion = segments.firstIndex { $0.start > learnt.start } ?? segments.count
        segments.insert(Segment(start: learnt.start, end: learnt.end, image: imageIndex), at: insertion)
        return (learnt.image, address &- learnt.image.bias)
    }

    private func segmentIndex(of address: UInt) -> Int? {
        var low = 0
        var high = segments.count
        while low < high {
            let middle = (low + high) / 2
            if segments[middle].end <= address {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low < segments.count && segments[low].start <= address ? low : nil
    }

    /// The loaded segment holding `address` and its image, asked of the loader.
    static func segment(of address: UInt) -> (image: ImageOfAddress, start: UInt, end: UInt)? {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 4096) { path in
            withUnsafeTemporaryAllocation(of: CChar.self, capacity: 128) { build in
                var bias: UInt = 0
                var start: UInt = 0
                var end: UInt = 0
                guard
                    rdiag_image_segment_for_address(
                        address, path.baseAddress!, path.count, &bias, build.baseAddress!, build.count, &start,
                        &end) == 0
                else { return nil }
                let id = String(cString: build.baseAddress!)
                let image = ImageOfAddress(
                    path: String(cString: path.baseAddress!), bias: bias, buildID: id.isEmpty ? nil : id)
                return (image, start, max(end, address &+ 1))
            }
        }
    }
}
