import DrillDownCore

/// The state of one binary property-list parse.
struct BinaryPropertyListParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let offsetSize: Int
    let refSize: Int
    let objectCount: Int
    let topObject: Int
    let offsetTable: Int
    /// Where objects end (the start of the offset table).
    let objectsEnd: Int
    var builder: TreeBuilder
    /// Containers on the current path, by object index: a reference to one of them is a cycle.
    var onPath: [Bool]
    var nodes = 0
    /// The most nodes and bytes of text shared references may expand the document to.
    let maxNodes: Int
    let maxTextBytes: Int
    let limit: ExpansionLimit

    /// An open array or dictionary: where its references are and which one is next.
    struct Frame {
        var object: Int
        var refs: Int
        var count: Int
        var next: Int
        var isDict: Bool
    }

    init(_ bytes: UnsafeBufferPointer<UInt8>, limit: ExpansionLimit) throws(ParseFailure) {
        self.bytes = bytes
        self.limit = limit
        maxNodes = limit.maxNodes(inputBytes: bytes.count)
        maxTextBytes = limit.maxTextBytes(inputBytes: bytes.count)
        let trailer = try BinaryPropertyListTrailer(bytes)
        offsetSize = trailer.offsetSize
        refSize = trailer.refSize
        objectCount = trailer.objectCount
        topObject = trailer.topObject
        offsetTable = trailer.offsetTable
        objectsEnd = trailer.offsetTable
        onPath = [Bool](repeating: false, count: objectCount)
        builder = TreeBuilder(expectedNodes: min(objectCount, maxNodes), expectedTextBytes: min(bytes.count, maxTextBytes))
    }

    mutating func parse() throws(ParseFailure) -> TreeStore {
        var stack: [Frame] = []
        builder.beginNode()
        builder.endKey()
        if let frame = try value(topObject) { stack.append(frame) }
        while !stack.isEmpty {
            let top = stack.count - 1
            let frame = stack[top]
            if frame.next == frame.count {
                onPath[frame.object] = false
                if frame.isDict, frame.count > 1, let (later, earlier) = builder.duplicateKeyInOpenContainer() {
                    let at = offset(of: frame.object)
                    throw Self.failure(
                        at, "duplicate key '\(ParseFailure.shown(builder.keyInOpenContainer(later)))' in the dictionary at byte offset \(at) "
                            + "(its members \(earlier) and \(later)); a key may appear once per dictionary")
                }
                builder.closeContainer()
                stack.removeLast()
                continue
            }
            stack[top].next += 1
            builder.beginNode()
            if frame.isDict {
                let keyRef = try ref(at: frame.refs + frame.next * refSize)
                try key(keyRef)
                builder.endKey()
                let valueRef = try ref(at: frame.refs + (frame.count + frame.next) * refSize)
                if let child = try value(valueRef) { stack.append(child) }
            } else {
                builder.endKey()
                let valueRef = try ref(at: frame.refs + frame.next * refSize)
                if let child = try value(valueRef) { stack.append(child) }
            }
            if stack.count > BinaryPropertyListReader.maxDepth {
                throw Self.failure(offset(of: stack[stack.count - 1].object), "nesting deeper than \(BinaryPropertyListReader.maxDepth) levels")
            }
        }
        guard builder.text.count < Int(UInt32.max) else { throw Self.failure(0, "document too large: more than 4 GiB of text") }
        return builder.build()
    }

    // MARK: Objects

    /// Reads object `index` as the current node: a scalar is finished, a container opened and
    /// returned as a frame whose members the caller reads.
    mutating func value(_ index: Int) throws(ParseFailure) -> Frame? {
        nodes += 1
        guard nodes <= maxNodes else {
            throw Self.failure(offset(of: index), limit.message("shared references", limit: maxNodes, unit: "nodes"))
        }
        guard builder.text.count <= maxTextBytes else {
            throw Self.failure(offset(of: index), limit.message("shared references", limit: maxTextBytes, unit: "bytes of text"))
        }
        let at = offset(of: index)
        let marker = try byte(at)
        let low = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x00:
                builder.finishScalar(.null)
            case 0x08, 0x09:
                builder.appendText(marker == 0x09 ? "true" : "false")
                builder.finishScalar(.bool)
            default:
                throw Self.failure(at, "unknown object marker 0x\(hex(marker)) at byte offset \(at)")
            }
        case 0x1, 0x8:
            let size = marker >> 4 == 0x1 ? 1 << low : low + 1
            guard size <= 16 else { throw Self.failure(at, "invalid integer size \(size) at byte offset \(at)") }
            try appendInteger(at: at + 1, size: size)
            builder.finishScalar(.integer)
        case 0x2:
            let size = 1 << low
            guard size == 4 || size == 8 else { throw Self.failure(at, "invalid real size \(size) at byte offset \(at); expected 4 or 8") }
            let bits = try unsigned(at: at + 1, size: size)
            let text = size == 4
                ? Self.spelling(Float(bitPattern: UInt32(bits)))
                : PropertyListNumbers.spelling(of: Double(bitPattern: bits))
            builder.appendText(text)
            builder.finishScalar(.real)
        case 0x3:
            guard marker == 0x33 else { throw Self.failure(at, "invalid date marker 0x\(hex(marker)) at byte offset \(at); expected 0x33") }
            let seconds = Double(bitPattern: try unsigned(at: at + 1, size: 8))
            guard let text = PropertyListDate.writableText(sinceReferenceDate: seconds) else {
                throw Self.failure(at, "date \(seconds) seconds from 2001-01-01 at byte offset \(at) is outside the years 0001 to 9999 that dates can be written in")
            }
            builder.appendText(text)
            builder.finishScalar(.date)
        case 0x4:
            let (start, count) = try length(at: at, low: low, unit: 1)
            Base64.encode(UnsafeBufferPointer(rebasing: bytes[start ..< start + count]), into: &builder.text)
            builder.finishScalar(.data)
        case 0x5, 0x6, 0x7:
            try string(at: at, marker: marker)
            builder.finishScalar(.string)
        case 0xA, 0xC, 0xD:
            let isDict = marker >> 4 == 0xD
            let (start, count) = try length(at: at, low: low, unit: refSize * (isDict ? 2 : 1))
            if onPath[index] {
                throw Self.failure(at, "reference cycle: object \(index) at byte offset \(at) contains itself")
            }
            onPath[index] = true
            builder.openContainer(isDict ? .object : .array)
            return Frame(object: index, refs: start, count: count, next: 0, isDict: isDict)
        default:
            throw Self.failure(at, "unknown object marker 0x\(hex(marker)) at byte offset \(at)")
        }
        return nil
    }

    /// Appends the text of a dictionary key, which must be a string object.
    mutating func key(_ index: Int) throws(ParseFailure) {
        let at = offset(of: index)
        let marker = try byte(at)
        guard (0x5 ... 0x7).contains(marker >> 4) else {
            throw Self.failure(at, "dictionary key at byte offset \(at) is not a string (marker 0x\(hex(marker)))")
        }
        try string(at: at, marker: marker)
    }

    /// Appends the UTF-8 of the string object at `at`.
    mutating func string(at: Int, marker: UInt8) throws(ParseFailure) {
        let low = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0x5:
            let (start, count) = try length(at: at, low: low, unit: 1)
            let slice = UnsafeBufferPointer(rebasing: bytes[start ..< start + count])
            if Self.isASCII(slice) {
                builder.appendText(slice)
            } else {
                for c in slice { UTF8Validation.append(UInt32(c), to: &builder.text) }
            }
        case 0x6:
            let (start, count) = try length(at: at, low: low, unit: 2)
            var units: [UInt16] = []
            units.reserveCapacity(count)
            for i in 0 ..< count { units.append(UInt16(bytes[start + 2 * i]) << 8 | UInt16(bytes[start + 2 * i + 1])) }
            for scalar in Unicode.UTF16.decode(units) { UTF8Validation.append(scalar, to: &builder.text) }
        default:
            let (start, count) = try length(at: at, low: low, unit: 1)
            let slice = UnsafeBufferPointer(rebasing: bytes[start ..< start + count])
            if let bad = UTF8Validation.firstInvalidOffset(in: slice) {
                throw Self.failure(start + bad, "invalid UTF-8 in string at byte offset \(start + bad)")
            }
            builder.appendText(slice)
        }
    }

    // MARK: Bytes

    /// The byte offset of object `index` (already known to be below the object count).
    func offset(of index: Int) -> Int {
        let entry = offsetTable + index * offsetSize
        var v = 0
        for i in entry ..< entry + offsetSize { v = v << 8 | Int(bytes[i]) }
        return v
    }

    /// The object index stored at `at` in a container's reference list, validated.
    func ref(at: Int) throws(ParseFailure) -> Int {
        let v = try unsigned(at: at, size: refSize)
        guard v < UInt64(objectCount) else {
            throw Self.failure(at, "object reference \(v) at byte offset \(at) is out of range (\(objectCount) objects)")
        }
        let target = offset(of: Int(v))
        guard target >= 8 && target < objectsEnd else {
            throw Self.failure(at, "object \(v) referenced at byte offset \(at) has offset \(target), outside the object area 8..<\(objectsEnd)")
        }
        return Int(v)
    }

    func byte(_ at: Int) throws(ParseFailure) -> UInt8 {
        guard at >= 8 && at < objectsEnd else {
            throw Self.failure(at, "object offset \(at) is outside the object area 8..<\(objectsEnd)")
        }
        return bytes[at]
    }

    func unsigned(at: Int, size: Int) throws(ParseFailure) -> UInt64 {
        guard at >= 0, size <= objectsEnd - at else {
            throw Self.failure(at, "truncated object: \(size) bytes at byte offset \(at) run past the object area")
        }
        var v: UInt64 = 0
        for i in at ..< at + min(size, 8) { v = v << 8 | UInt64(bytes[i]) }
        return v
    }

    /// Appends the decimal text of a big-endian integer of `size` bytes (1, 2, 4 unsigned; 8 signed;
    /// 16 signed 128-bit), its digits formed on the stack (no `String`).
    mutating func appendInteger(at: Int, size: Int) throws(ParseFailure) {
        guard size <= objectsEnd - at else {
            throw Self.failure(at, "truncated integer: \(size) bytes at byte offset \(at) run past the object area")
        }
        var v = try unsigned(at: at, size: min(size, 8))
        var negative = false
        if size == 16 {
            let low = try unsigned(at: at + 8, size: 8)
            guard v == 0 || (v == UInt64.max && low >= 1 << 63) else {
                throw Self.failure(at, "128-bit integer at byte offset \(at) is out of the 64-bit range")
            }
            negative = v != 0
            v = low
        } else {
            negative = size == 8 && v >= 1 << 63
        }
        if negative {
            builder.appendText(0x2D)
            v = 0 &- v
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var i = 20
            repeat {
                i -= 1
                digits[i] = UInt8(truncatingIfNeeded: 0x30 &+ v % 10)
                v /= 10
            } while v > 0
            builder.appendText(UnsafeBufferPointer(rebasing: digits[i...]))
        }
    }

    /// Whether every byte is below 0x80, checked 8 bytes at a time.
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard var p = bytes.baseAddress else { return true }
        let end = p + bytes.count
        while end - p >= 8 {
            if UnsafeRawPointer(p).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            p += 8
        }
        while p < end {
            if p.pointee >= 0x80 { return false }
            p += 1
        }
        return true
    }

    /// The start and element count of a variable-length object at `at` whose elements are `unit` bytes.
    func length(at: Int, low: Int, unit: Int) throws(ParseFailure) -> (start: Int, count: Int) {
        var count = low
        var start = at + 1
        if low == 0x0F {
            let marker = try byte(at + 1)
            guard marker >> 4 == 0x1, marker & 0x0F <= 3 else {
                throw Self.failure(at + 1, "invalid length marker 0x\(hex(marker)) at byte offset \(at + 1); expected an integer")
            }
            let size = 1 << Int(marker & 0x0F)
            let v = try unsigned(at: at + 2, size: size)
            guard v <= UInt64(objectsEnd) else {
                throw Self.failure(at + 2, "length \(v) at byte offset \(at + 2) is larger than the file")
            }
            count = Int(v)
            start = at + 2 + size
        }
        guard start <= objectsEnd, count <= (objectsEnd - start) / unit else {
            throw Self.failure(at, "truncated object at byte offset \(at): \(count) elements of \(unit) bytes run past the object area")
        }
        return (start, count)
    }

    static func spelling(_ value: Float) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value < 0 ? "-inf" : "inf" }
        return value.description
    }

    func hex(_ b: UInt8) -> String { (b < 16 ? "0" : "") + String(b, radix: 16, uppercase: true) }

    static func failure(_ offset: Int, _ message: String) -> ParseFailure {
        ParseFailure(offset: offset, message, hasLines: false)
    }
}
