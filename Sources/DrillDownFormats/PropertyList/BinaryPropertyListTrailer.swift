import DrillDownCore

/// A binary property list's header and 32-byte trailer, checked: the sizes of offsets and object
/// references, the object count, the top object and where the offset table is. Both parsers
/// (``BinaryPropertyListFastParser`` declines where this throws) read the file through it.
struct BinaryPropertyListTrailer {
    let offsetSize: Int
    let refSize: Int
    let objectCount: Int
    let topObject: Int
    /// Where the offset table starts (and objects end).
    let offsetTable: Int

    init(_ bytes: UnsafeBufferPointer<UInt8>) throws(ParseFailure) {
        guard bytes.count >= 8, bytes.starts(with: "bplist".utf8) else {
            throw BinaryPropertyListParser.failure(0, "not a binary property list: expected 'bplist00' at byte offset 0")
        }
        guard bytes[6] == 0x30 && (bytes[7] == 0x30 || bytes[7] == 0x31) else {
            throw BinaryPropertyListParser.failure(6, "unsupported binary property list version '\(String(decoding: bytes[6 ..< 8], as: UTF8.self))' at byte offset 6; expected '00'")
        }
        guard bytes.count >= 8 + 32 else {
            throw BinaryPropertyListParser.failure(bytes.count, "truncated binary property list: \(bytes.count) bytes is too short for the 32-byte trailer")
        }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        let refSize = Int(bytes[trailer + 7])
        func uint64(_ at: Int) -> UInt64 {
            var v: UInt64 = 0
            for i in at ..< at + 8 { v = v << 8 | UInt64(bytes[i]) }
            return v
        }
        let count = uint64(trailer + 8)
        let top = uint64(trailer + 16)
        let table = uint64(trailer + 24)
        guard (1 ... 8).contains(offsetSize) else {
            throw BinaryPropertyListParser.failure(trailer + 6, "corrupt trailer: offset size \(offsetSize) at byte offset \(trailer + 6); expected 1 to 8")
        }
        guard (1 ... 8).contains(refSize) else {
            throw BinaryPropertyListParser.failure(trailer + 7, "corrupt trailer: object reference size \(refSize) at byte offset \(trailer + 7); expected 1 to 8")
        }
        guard count >= 1, count <= UInt64(trailer) else {
            throw BinaryPropertyListParser.failure(trailer + 8, "corrupt trailer: object count \(count) at byte offset \(trailer + 8) does not fit the file")
        }
        guard top < count else {
            throw BinaryPropertyListParser.failure(trailer + 16, "corrupt trailer: top object \(top) at byte offset \(trailer + 16) is not below the object count \(count)")
        }
        guard table >= 8, table <= UInt64(trailer), (UInt64(trailer) - table) / UInt64(offsetSize) >= count else {
            throw BinaryPropertyListParser.failure(trailer + 24, "corrupt trailer: offset table at \(table) (byte offset \(trailer + 24)) with \(count) entries of \(offsetSize) bytes does not fit before the trailer at \(trailer)")
        }
        self.offsetSize = offsetSize
        self.refSize = refSize
        objectCount = Int(count)
        topObject = Int(top)
        offsetTable = Int(table)
    }
}
