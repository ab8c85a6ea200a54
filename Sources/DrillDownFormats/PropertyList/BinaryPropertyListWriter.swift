import DrillDownCore

/// Writes a ``TreeStore`` as a binary property list (`bplist00`) that Apple's and Foundation's
/// readers accept.
///
/// Node `i` of the tree is object `i`; dictionary keys follow as string objects, each distinct
/// key written once. Strings are ASCII when they can be, UTF-16 otherwise. Integers beyond the
/// signed 64-bit range (up to `UInt64.max`) use the 16-byte form. Null is an error: property lists
/// have none.
///
/// - Complexity: O(n) in the size of the tree.
enum BinaryPropertyListWriter {
    /// The document's bytes.
    static func data(_ tree: TreeStore) throws(WriteFailure) -> [UInt8] {
        var out = WriterOutput(.collect)
        try write(tree, to: &out)
        return out.bytes
    }

    /// Writes the document to `out`, passing it on a chunk at a time (see ``WriterOutput``).
    static func write(_ edited: TreeStore, to out: inout WriterOutput) throws(WriteFailure) {
        // Object numbers are node ids, so they must be dense: an edited tree is compacted first.
        let tree = edited.compacted()
        let n = tree.count
        var keyObject = [Int32](repeating: -1, count: n)
        var keyIndex: [TextBytes: Int32] = [:]
        var keys: [NodeID] = []
        for i in 0 ..< n {
            let id = NodeID(i)
            guard tree.kind(of: id) == .object else { continue }
            for child in tree.children(of: id) {
                let key = tree.keyBytes(of: child)
                if let known = keyIndex[key] {
                    keyObject[child.index] = known
                } else {
                    let index = Int32(n + keys.count)
                    keyIndex[key] = index
                    keyObject[child.index] = index
                    keys.append(child)
                }
            }
        }
        let objectCount = n + keys.count
        let refSize = byteWidth(UInt64(objectCount - 1))
        out.reserve(8 + n * 16)
        out.append(ascii: "bplist00")
        var offsets: [Int] = []
        offsets.reserveCapacity(objectCount)
        for i in 0 ..< n {
            try out.checkpoint()
            offsets.append(out.total)
            let id = NodeID(i)
            let value = tree.valueBytes(of: id)
            switch tree.kind(of: id) {
            case .object:
                let children = tree.children(of: id)
                appendHeader(0xD0, count: children.count, to: &out)
                for child in children { appendSized(UInt64(keyObject[child.index]), width: refSize, to: &out) }
                for child in children { appendSized(UInt64(child.index), width: refSize, to: &out) }
            case .array:
                let children = tree.children(of: id)
                appendHeader(0xA0, count: children.count, to: &out)
                for child in children { appendSized(UInt64(child.index), width: refSize, to: &out) }
            case .string:
                appendString(value, to: &out)
            case .integer:
                let text = String(decoding: value, as: UTF8.self)
                let canonical = PropertyListNumbers.integer(text) ?? text
                if let v = Int64(canonical) {
                    appendInteger(v, to: &out)
                } else if let v = UInt64(canonical) {
                    out.append(0x14)
                    appendSized(0, width: 8, to: &out)
                    appendSized(v, width: 8, to: &out)
                } else {
                    throw WriteFailure("integer \(text) at \(tree.describePath(id)) does not fit a binary property list (64 bits)")
                }
            case .real:
                guard let v = ScalarText.double(value) else {
                    throw WriteFailure("'\(String(decoding: value, as: UTF8.self))' is not a number (at \(tree.describePath(id)))")
                }
                out.append(0x23)
                appendSized(v.bitPattern, width: 8, to: &out)
            case .bool:
                out.append(ScalarText.isTrue(value) ? 0x09 : 0x08)
            case .date:
                guard let seconds = PropertyListDate.seconds(fromText: value) else {
                    throw WriteFailure("'\(String(decoding: value, as: UTF8.self))' is not an ISO 8601 date (at \(tree.describePath(id)))")
                }
                out.append(0x33)
                appendSized(seconds.bitPattern, width: 8, to: &out)
            case .data:
                guard let bytes = Base64.decode(value) else {
                    throw WriteFailure("data at \(tree.describePath(id)) is not valid base64")
                }
                appendHeader(0x40, count: bytes.count, to: &out)
                out.append(contentsOf: bytes)
            case .null:
                throw WriteFailure("property lists have no null; the value at \(tree.describePath(id)) is null")
            }
        }
        for key in keys {
            try out.checkpoint()
            offsets.append(out.total)
            appendString(tree.keyBytes(of: key), to: &out)
        }
        let tableOffset = out.total
        let offsetSize = byteWidth(UInt64(tableOffset))
        for offset in offsets {
            try out.checkpoint()
            appendSized(UInt64(offset), width: offsetSize, to: &out)
        }
        out.append(contentsOf: [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(refSize)])
        appendSized(UInt64(objectCount), width: 8, to: &out)
        appendSized(0, width: 8, to: &out)
        appendSized(UInt64(tableOffset), width: 8, to: &out)
    }

    /// The fewest bytes (1, 2, 4 or 8) that hold `value`.
    static func byteWidth(_ value: UInt64) -> Int {
        value <= 0xFF ? 1 : value <= 0xFFFF ? 2 : value <= 0xFFFF_FFFF ? 4 : 8
    }

    static func appendSized(_ value: UInt64, width: Int, to out: inout some ByteSink) {
        var shift = (width - 1) * 8
        while shift >= 0 {
            out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            shift -= 8
        }
    }

    /// A marker with its element count, inline below 15 or as a following integer object.
    static func appendHeader(_ marker: UInt8, count: Int, to out: inout some ByteSink) {
        if count < 15 {
            out.append(marker | UInt8(count))
        } else {
            out.append(marker | 0x0F)
            appendInteger(Int64(count), to: &out)
        }
    }

    static func appendInteger(_ value: Int64, to out: inout some ByteSink) {
        if value < 0 {
            out.append(0x13)
            appendSized(UInt64(bitPattern: value), width: 8, to: &out)
            return
        }
        let width = byteWidth(UInt64(value))
        out.append(0x10 | UInt8(width.trailingZeroBitCount))
        appendSized(UInt64(value), width: width, to: &out)
    }

    /// ``appendString(_:to:)`` through a pointer, not ``TextBytes``' subscript.
    static func appendString(_ bytes: TextBytes, to out: inout some ByteSink) { bytes.withUnsafeBufferPointer { appendString($0, to: &out) } }

    static func appendString(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout some ByteSink) {
        if bytes.allSatisfy({ $0 < 0x80 }) {
            appendHeader(0x50, count: bytes.count, to: &out)
            out.append(contentsOf: bytes)
            return
        }
        let units = Array(String(decoding: bytes, as: UTF8.self).utf16)
        appendHeader(0x60, count: units.count, to: &out)
        for unit in units {
            out.append(UInt8(unit >> 8))
            out.append(UInt8(unit & 0xFF))
        }
    }
}
