import Foundation

/// Reads the GNU build id (the `NT_GNU_BUILD_ID` note) of an ELF file on disk, to tell
/// whether a binary is the one a report's addresses came from.
///
/// Reads only the ELF header, the program headers and the note segments, never the whole
/// file. Handles 32- and 64-bit, little- and big-endian files.
///
/// ```swift
/// if let id = ELFBuildID.read(path: "/usr/lib/libc.so.6") {
///     print(id)   // lowercase hex, as reports store it
/// }
/// ```
package enum ELFBuildID {
    /// The build id as lowercase hex, or `nil` when the file is unreadable, not ELF, or has none.
    package static func read(path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let header = read(handle, at: 0, count: 64), header.count >= 52,
            header.starts(with: [0x7F, 0x45, 0x4C, 0x46])
        else { return nil }
        let is64 = header[4] == 2
        let reader = ByteReader(bigEndian: header[5] == 2)
        let programHeaderOffset = is64 ? reader.uint(header, 0x20, 8) : reader.uint(header, 0x1C, 4)
        let entrySize = reader.uint(header, is64 ? 0x36 : 0x2A, 2)
        let entryCount = reader.uint(header, is64 ? 0x38 : 0x2C, 2)
        guard entrySize >= (is64 ? 56 : 32), entryCount > 0, entryCount < 4096,
            let table = read(handle, at: programHeaderOffset, count: Int(entrySize * entryCount))
        else { return nil }
        for index in 0..<Int(entryCount) {
            let base = index * Int(entrySize)
            guard base + Int(entrySize) <= table.count, reader.uint(table, base, 4) == 4 /* PT_NOTE */ else { continue }
            let offset = is64 ? reader.uint(table, base + 8, 8) : reader.uint(table, base + 4, 4)
            let size = is64 ? reader.uint(table, base + 32, 8) : reader.uint(table, base + 16, 4)
            let align = is64 ? reader.uint(table, base + 48, 8) : reader.uint(table, base + 28, 4)
            guard size > 0, size < 1 << 20, let notes = read(handle, at: offset, count: Int(size)) else { continue }
            if let id = buildID(inNotes: notes, reader: reader, padding: align == 8 ? 8 : 4) {
                return id
            }
        }
        return nil
    }

    /// Walks the notes of one segment and returns the GNU build id's bytes as hex.
    static func buildID(inNotes notes: Data, reader: ByteReader, padding: Int) -> String? {
        func padded(_ value: Int) -> Int { (value + padding - 1) / padding * padding }
        var cursor = 0
        while cursor + 12 <= notes.count {
            let nameSize = Int(reader.uint(notes, cursor, 4))
            let descriptionSize = Int(reader.uint(notes, cursor + 4, 4))
            let type = reader.uint(notes, cursor + 8, 4)
            let nameStart = cursor + 12
            let descriptionStart = nameStart + padded(nameSize)
            guard nameSize >= 0, descriptionSize >= 0, descriptionStart + descriptionSize <= notes.count else {
                return nil
            }
            let name = notes[notes.startIndex + nameStart..<notes.startIndex + nameStart + nameSize]
            if type == 3 /* NT_GNU_BUILD_ID */, Array(name) == [0x47, 0x4E, 0x55, 0x00] /* "GNU\0" */ {
                let bytes = notes[
                    notes.startIndex + descriptionStart..<notes.startIndex + descriptionStart + descriptionSize]
                return hex(bytes)
            }
            cursor = descriptionStart + padded(descriptionSize)
        }
        return nil
    }

    /// Lowercase hex of `bytes`.
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef")
        var text = ""
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return text
    }

    private static func read(_ handle: FileHandle, at offset: UInt64, count: Int) -> Data? {
        do {
            try handle.seek(toOffset: offset)
            return try handle.read(upToCount: count)
        } catch {
            return nil
        }
    }
}

/// Reads unsigned integers of 1 to 8 bytes from `Data` in one byte order.
struct ByteReader {
    /// Whether the most significant byte comes first.
    let bigEndian: Bool

    /// The integer of `size` bytes at `offset`; 0 when out of range.
    func uint(_ data: Data, _ offset: Int, _ size: Int) -> UInt64 {
        guard offset >= 0, offset + size <= data.count else { return 0 }
        var value: UInt64 = 0
        for position in 0..<size {
            let byte = UInt64(data[data.startIndex + offset + position])
            value |= bigEndian ? byte << UInt64(8 * (size - 1 - position)) : byte << UInt64(8 * position)
        }
        return value
    }
}
