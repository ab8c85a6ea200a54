#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import DrillDownCore

/// The fast path of the binary property-list reader: two walks of the object graph from the top
/// object that write every node straight to its final id in the store's columns
/// (``TreeBuilder/Columns/place(_:kind:parent:firstChild:childCount:textStart:titleLength:valueLength:)``),
/// with no pending list, no growing array and no copy of a node.
///
/// The first walk visits each container once (shared ones are remembered) and finds, for every
/// container, how many nodes, how many bytes of text at most, and how many levels it expands to;
/// a reference cycle, nesting past ``BinaryPropertyListReader/maxDepth`` or an expansion past the
/// ``ExpansionLimit`` is declined there. Those sizes give each container's first child id in
/// ``TreeBuilder``'s layout (its children get ids when it closes, after all its descendants'), so
/// the second walk, in document order, writes keys, strings, integers, reals, dates and data in
/// the same text as ``BinaryPropertyListParser``. Anything unusual (every error, a 128-bit
/// integer out of range, an invalid date, invalid UTF-8) returns `nil`, and the reader reads the
/// input again with ``BinaryPropertyListParser``, whose errors name the byte offset; on every
/// input that parser accepts both build the same tree (`BinaryPropertyListDifferentialTests`).
struct BinaryPropertyListFastParser {
    /// The walk stops here, for errors and input left to ``BinaryPropertyListParser``.
    struct Decline: Error {}

    /// What an object expands to: nodes, bytes of text at most, and levels of containers.
    struct Summary {
        var nodes: Int
        var text: Int
        var height: Int
    }

    /// A container's ``Summary`` as the first walk stores it, 12 bytes (the limits keep every
    /// count below 2^31 and text below 2^32). `nodes` is 0 before the walk reaches the container
    /// and -1 while its members are being measured (a reference to it then is a cycle).
    struct Stored {
        var nodes: Int32
        var height: Int32
        var text: UInt32
    }

    /// An object's marker decoded: a scalar's text bound, or a container's reference list.
    struct Object {
        var at: Int
        var marker: UInt8
        /// For strings, data and containers: where the elements start and how many there are.
        var start: Int
        var count: Int
        var isContainer: Bool { marker >> 4 == 0xA || marker >> 4 == 0xC || marker >> 4 == 0xD }
        var isDict: Bool { marker >> 4 == 0xD }
    }

    /// An open container of the second walk.
    struct Frame {
        var refs: Int
        var count: Int
        var next: Int
        var id: Int
        var first: Int
        var isDict: Bool
    }

    /// An open container of the first walk and the sums of its members so far.
    struct Measure {
        var object: Int
        var refs: Int
        var count: Int
        var next: Int
        var isDict: Bool
        var sum: Summary
    }

    let base: UnsafePointer<UInt8>
    let offsetSize: Int
    let refSize: Int
    let objectCount: Int
    let topObject: Int
    let offsetTable: Int
    /// Where objects end (the start of the offset table).
    let objectsEnd: Int
    let maxNodes: Int
    let maxTextBytes: Int
    /// One ``Stored`` per object (only containers' are written), zeroed.
    let summaries: UnsafeMutablePointer<Stored>

    /// The tree of `bytes`, or `nil` when the input needs ``BinaryPropertyListParser``.
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, limit: ExpansionLimit) throws(ReservationFailure) -> TreeStore? {
        guard let base = bytes.baseAddress, let trailer = try? BinaryPropertyListTrailer(bytes) else { return nil }
        let count = trailer.objectCount
        guard let memory = calloc(count, MemoryLayout<Stored>.stride) else { return nil }
        defer { free(memory) }
        // Node ids are 32-bit and text offsets 32-bit: larger limits cannot be reached anyway.
        let parser = BinaryPropertyListFastParser(
            base: base, offsetSize: trailer.offsetSize, refSize: trailer.refSize, objectCount: count, topObject: trailer.topObject,
            offsetTable: trailer.offsetTable, objectsEnd: trailer.offsetTable,
            maxNodes: min(limit.maxNodes(inputBytes: bytes.count), Int(Int32.max) - 1),
            maxTextBytes: min(limit.maxTextBytes(inputBytes: bytes.count), Int(UInt32.max) - 1),
            summaries: memory.bindMemory(to: Stored.self, capacity: count))
        guard let total = try? parser.measure() else { return nil }
        return try TreeBuilder.build(nodeCapacity: total.nodes, textCapacity: total.text) { columns in
            do throws(Decline) {
                try parser.write(total.nodes, &columns)
                return columns.textCount <= parser.maxTextBytes
            } catch {
                return false
            }
        }
    }

    // MARK: First walk

    /// The nodes, text bound and height the top object expands to, every container's summary stored.
    func measure() throws(Decline) -> Summary {
        let top = try object(topObject)
        guard top.isContainer else { return Summary(nodes: 1, text: try textBound(top), height: 0) }
        var stack: [Measure] = []
        stack.reserveCapacity(64)
        summaries[topObject].nodes = -1
        stack.append(Measure(object: topObject, refs: top.start, count: top.count, next: 0, isDict: top.isDict, sum: Summary(nodes: 1, text: 0, height: 1)))
        while true {
            let t = stack.count - 1
            let frame = stack[t]
            if frame.next == frame.count {
                summaries[frame.object] = Stored(
                    nodes: Int32(truncatingIfNeeded: frame.sum.nodes), height: Int32(truncatingIfNeeded: frame.sum.height),
                    text: UInt32(truncatingIfNeeded: frame.sum.text))
                stack.removeLast()
                guard t > 0 else { return frame.sum }
                try add(frame.sum, to: &stack[t - 1].sum)
                continue
            }
            stack[t].next = frame.next + 1
            if frame.isDict {
                let key = try object(try ref(at: frame.refs + frame.next * refSize))
                guard key.marker >> 4 >= 0x5 && key.marker >> 4 <= 0x7 else { throw Decline() }
                try add(Summary(nodes: 0, text: try textBound(key), height: 0), to: &stack[t].sum)
            }
            let index = try ref(at: frame.refs + (frame.isDict ? frame.count + frame.next : frame.next) * refSize)
            let known = summaries[index]
            if known.nodes > 0 {
                try add(Summary(nodes: Int(known.nodes), text: Int(known.text), height: Int(known.height)), to: &stack[t].sum)
                continue
            }
            guard known.nodes == 0 else { throw Decline() }
            let value = try object(index)
            if value.isContainer {
                guard stack.count < BinaryPropertyListReader.maxDepth else { throw Decline() }
                summaries[index].nodes = -1
                stack.append(Measure(object: index, refs: value.start, count: value.count, next: 0, isDict: value.isDict, sum: Summary(nodes: 1, text: 0, height: 1)))
            } else {
                try add(Summary(nodes: 1, text: try textBound(value), height: 0), to: &stack[t].sum)
            }
        }
    }

    /// Adds a member's summary to its container's, declining past the limits.
    @inline(__always)
    func add(_ member: Summary, to sum: inout Summary) throws(Decline) {
        sum.nodes += member.nodes
        sum.text += member.text
        sum.height = max(sum.height, member.height + 1)
        guard sum.nodes <= maxNodes, sum.text <= maxTextBytes, sum.height <= BinaryPropertyListReader.maxDepth else { throw Decline() }
    }

    /// The most bytes of text the scalar `o` is written as.
    func textBound(_ o: Object) throws(Decline) -> Int {
        switch o.marker >> 4 {
        case 0x0: return 5
        // Unsigned 1-, 2- and 4-byte integers have at most 3, 5 and 10 digits; others 20 with the sign.
        case 0x1, 0x8: return o.count == 1 ? 3 : o.count == 2 ? 5 : o.count == 4 ? 10 : 20
        // Reals are at most 24 bytes ("-2.2250738585072014e-308"), dates 24 ("…T00:00:00.000Z").
        case 0x2, 0x3: return 32
        case 0x4: return (o.count + 2) / 3 * 4
        case 0x5: return 2 * o.count
        case 0x6: return 3 * o.count
        default: return o.count
        }
    }

    // MARK: Second walk

    /// Writes all `nodes` nodes at their ids in document order.
    func write(_ nodes: Int, _ c: inout TreeBuilder.Columns) throws(Decline) {
        var stack: [Frame] = []
        stack.reserveCapacity(64)
        var placed = 1
        try place(topObject, id: 0, parent: -1, textStart: 0, titleLength: 0, placed: placed, &stack, &c)
        while !stack.isEmpty {
            let t = stack.count - 1
            let frame = stack[t]
            if frame.next == frame.count {
                // A duplicate key is left to BinaryPropertyListParser, which names it.
                if frame.isDict && frame.count > 1 && c.keysMayRepeat(first: frame.first, count: frame.count) { throw Decline() }
                placed += frame.count
                stack.removeLast()
                continue
            }
            stack[t].next = frame.next + 1
            let start = c.textCount
            if frame.isDict {
                let key = try object(try ref(at: frame.refs + frame.next * refSize))
                try string(key, &c)
            }
            let index = try ref(at: frame.refs + (frame.isDict ? frame.count + frame.next : frame.next) * refSize)
            try place(index, id: frame.first + frame.next, parent: frame.id, textStart: start, titleLength: c.textCount - start, placed: placed, &stack, &c)
        }
        guard placed == nodes else { throw Decline() }
        c.finishPlaced()
    }

    /// Writes object `index` as node `id`; a container is pushed for its members to follow.
    /// `placed` is how many nodes ``TreeBuilder`` would have given ids so far.
    @inline(__always)
    func place(_ index: Int, id: Int, parent: Int, textStart: Int, titleLength: Int, placed: Int, _ stack: inout [Frame], _ c: inout TreeBuilder.Columns) throws(Decline) {
        let o = try object(index)
        let kind: ValueKind
        switch o.marker >> 4 {
        case 0xA, 0xC, 0xD:
            // Its children get ids when it closes, after every node its members expand to.
            let first = placed + Int(summaries[index].nodes) - 1 - o.count
            c.place(id, kind: o.isDict ? .object : .array, parent: parent, firstChild: first, childCount: o.count,
                    textStart: textStart, titleLength: titleLength, valueLength: 0)
            if o.count > 0 {
                guard stack.count < BinaryPropertyListReader.maxDepth else { throw Decline() }
                stack.append(Frame(refs: o.start, count: o.count, next: 0, id: id, first: first, isDict: o.isDict))
            }
            return
        case 0x0:
            switch o.marker {
            case 0x00:
                kind = .null
            case 0x08:
                try append("false", &c)
                kind = .bool
            default:
                try append("true", &c)
                kind = .bool
            }
        case 0x1, 0x8:
            try integer(o, &c)
            kind = .integer
        case 0x2:
            let bits = unsigned(o.at + 1, o.count)
            try append(o.count == 4 ? BinaryPropertyListParser.spelling(Float(bitPattern: UInt32(bits)))
                : PropertyListNumbers.spelling(of: Double(bitPattern: bits)), &c)
            kind = .real
        case 0x3:
            guard let text = PropertyListDate.writableText(sinceReferenceDate: Double(bitPattern: unsigned(o.at + 1, 8))) else { throw Decline() }
            try append(text, &c)
            kind = .date
        case 0x4:
            try base64(o, &c)
            kind = .data
        default:
            try string(o, &c)
            kind = .string
        }
        c.place(id, kind: kind, parent: parent, firstChild: 0, childCount: 0, textStart: textStart,
                titleLength: titleLength, valueLength: c.textCount - textStart - titleLength)
    }

    /// Room for `n` more bytes of text.
    @inline(__always)
    func room(_ n: Int, _ c: inout TreeBuilder.Columns) throws(Decline) -> UnsafeMutablePointer<UInt8> {
        guard n <= c.textCapacity &- c.textCount else { throw Decline() }
        return c.text + c.textCount
    }

    func append(_ text: String, _ c: inout TreeBuilder.Columns) throws(Decline) {
        var text = text
        let ok = text.withUTF8 { utf8 in utf8.isEmpty || c.appendText(utf8.baseAddress!, utf8.count) }
        guard ok else { throw Decline() }
    }

    /// Writes a string object's UTF-8: ASCII copied, Latin-1 and UTF-16 encoded, UTF-8 validated.
    func string(_ o: Object, _ c: inout TreeBuilder.Columns) throws(Decline) {
        let src = base + o.start
        switch o.marker >> 4 {
        case 0x5:
            let out = try room(2 * o.count, &c)
            if BinaryPropertyListParser.isASCII(UnsafeBufferPointer(start: src, count: o.count)) {
                out.update(from: src, count: o.count)
                c.textCount &+= o.count
            } else {
                var n = 0
                for i in 0 ..< o.count {
                    let b = src[i]
                    if b < 0x80 {
                        out[n] = b
                        n += 1
                    } else {
                        out[n] = 0xC0 | b >> 6
                        out[n + 1] = 0x80 | b & 0x3F
                        n += 2
                    }
                }
                c.textCount &+= n
            }
        case 0x6:
            let out = try room(3 * o.count, &c)
            var n = 0, i = 0
            while i < o.count {
                var scalar = UInt32(src[2 * i]) << 8 | UInt32(src[2 * i + 1])
                i += 1
                if scalar & 0xF800 == 0xD800 {
                    // A high surrogate followed by a low one is a pair; any other surrogate is U+FFFD.
                    let low = i < o.count ? UInt32(src[2 * i]) << 8 | UInt32(src[2 * i + 1]) : 0
                    if scalar < 0xDC00 && low & 0xFC00 == 0xDC00 {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10 | (low - 0xDC00))
                        i += 1
                    } else {
                        scalar = 0xFFFD
                    }
                }
                if scalar < 0x80 {
                    out[n] = UInt8(scalar)
                    n += 1
                } else if scalar < 0x800 {
                    out[n] = UInt8(0xC0 | scalar >> 6)
                    out[n + 1] = UInt8(0x80 | scalar & 0x3F)
                    n += 2
                } else if scalar < 0x10000 {
                    out[n] = UInt8(0xE0 | scalar >> 12)
                    out[n + 1] = UInt8(0x80 | scalar >> 6 & 0x3F)
                    out[n + 2] = UInt8(0x80 | scalar & 0x3F)
                    n += 3
                } else {
                    out[n] = UInt8(0xF0 | scalar >> 18)
                    out[n + 1] = UInt8(0x80 | scalar >> 12 & 0x3F)
                    out[n + 2] = UInt8(0x80 | scalar >> 6 & 0x3F)
                    out[n + 3] = UInt8(0x80 | scalar & 0x3F)
                    n += 4
                }
            }
            c.textCount &+= n
        case 0x7:
            let slice = UnsafeBufferPointer(start: src, count: o.count)
            guard UTF8Validation.firstInvalidOffset(in: slice) == nil else { throw Decline() }
            let out = try room(o.count, &c)
            out.update(from: src, count: o.count)
            c.textCount &+= o.count
        default:
            throw Decline()
        }
    }

    /// Writes an integer's decimal text as ``BinaryPropertyListParser`` does (8-byte integers
    /// signed, 16-byte ones only in the 64-bit range, other widths unsigned from their first 8 bytes).
    func integer(_ o: Object, _ c: inout TreeBuilder.Columns) throws(Decline) {
        let size = o.count
        var v = unsigned(o.at + 1, min(size, 8))
        var negative = size == 8 && v >= 1 << 63
        if size == 16 {
            let low = unsigned(o.at + 9, 8)
            guard v == 0 || (v == UInt64.max && low >= 1 << 63) else { throw Decline() }
            negative = v != 0
            v = low
        }
        let n = negative ? 1 : 0
        if negative { v = 0 &- v }
        var digits = 1
        var probe = v
        while probe >= 10 {
            probe /= 10
            digits += 1
        }
        let out = try room(n + digits, &c)
        if negative { out[0] = 0x2D }
        var i = n + digits
        repeat {
            i -= 1
            out[i] = UInt8(truncatingIfNeeded: 0x30 &+ v % 10)
            v /= 10
        } while v > 0
        c.textCount &+= n + digits
    }

    func base64(_ o: Object, _ c: inout TreeBuilder.Columns) throws(Decline) {
        let n = o.count
        let out = try room((n + 2) / 3 * 4, &c)
        let src = base + o.start
        var i = 0, j = 0
        Base64.alphabet.withUnsafeBufferPointer { alphabet in
            while i + 3 <= n {
                let v = UInt32(src[i]) << 16 | UInt32(src[i + 1]) << 8 | UInt32(src[i + 2])
                out[j] = alphabet[Int(v >> 18)]
                out[j + 1] = alphabet[Int(v >> 12 & 63)]
                out[j + 2] = alphabet[Int(v >> 6 & 63)]
                out[j + 3] = alphabet[Int(v & 63)]
                i += 3
                j += 4
            }
            if n - i > 0 {
                let v = UInt32(src[i]) << 16 | (n - i == 2 ? UInt32(src[i + 1]) << 8 : 0)
                out[j] = alphabet[Int(v >> 18)]
                out[j + 1] = alphabet[Int(v >> 12 & 63)]
                out[j + 2] = n - i == 2 ? alphabet[Int(v >> 6 & 63)] : 0x3D
                out[j + 3] = 0x3D
                j += 4
            }
        }
        c.textCount &+= j
    }

    // MARK: Bytes

    /// Object `index` (below the object count) decoded and bounds-checked as the full parser checks it.
    @inline(__always)
    func object(_ index: Int) throws(Decline) -> Object {
        let at = offset(of: index)
        guard at >= 8 && at < objectsEnd else { throw Decline() }
        let marker = base[at]
        let low = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0x0:
            guard marker == 0x00 || marker == 0x08 || marker == 0x09 else { throw Decline() }
            return Object(at: at, marker: marker, start: at + 1, count: 0)
        case 0x1, 0x8:
            let size = marker >> 4 == 0x1 ? 1 << low : low + 1
            guard size <= 16, size <= objectsEnd - at - 1 else { throw Decline() }
            return Object(at: at, marker: marker, start: at + 1, count: size)
        case 0x2:
            let size = 1 << low
            guard size == 4 || size == 8, size <= objectsEnd - at - 1 else { throw Decline() }
            return Object(at: at, marker: marker, start: at + 1, count: size)
        case 0x3:
            guard marker == 0x33, 8 <= objectsEnd - at - 1 else { throw Decline() }
            return Object(at: at, marker: marker, start: at + 1, count: 8)
        case 0x4, 0x5, 0x7:
            return try sized(at, marker, unit: 1)
        case 0x6:
            return try sized(at, marker, unit: 2)
        case 0xA, 0xC:
            return try sized(at, marker, unit: refSize)
        case 0xD:
            return try sized(at, marker, unit: 2 * refSize)
        default:
            throw Decline()
        }
    }

    /// A variable-length object: its length in the marker or in the integer after it.
    @inline(__always)
    func sized(_ at: Int, _ marker: UInt8, unit: Int) throws(Decline) -> Object {
        var count = Int(marker & 0x0F)
        var start = at + 1
        if count == 0x0F {
            guard at + 1 < objectsEnd else { throw Decline() }
            let lengthMarker = base[at + 1]
            guard lengthMarker >> 4 == 0x1, lengthMarker & 0x0F <= 3 else { throw Decline() }
            let size = 1 << Int(lengthMarker & 0x0F)
            guard size <= objectsEnd - at - 2 else { throw Decline() }
            let v = unsigned(at + 2, size)
            guard v <= UInt64(objectsEnd) else { throw Decline() }
            count = Int(v)
            start = at + 2 + size
        }
        guard start <= objectsEnd, count <= (objectsEnd - start) / unit else { throw Decline() }
        return Object(at: at, marker: marker, start: start, count: count)
    }

    /// The object index stored at `at` in a container's reference list (already within the object area), validated.
    @inline(__always)
    func ref(at: Int) throws(Decline) -> Int {
        let v = unsigned(at, refSize)
        guard v < UInt64(objectCount) else { throw Decline() }
        return Int(v)
    }

    /// The byte offset of object `index` (below the object count).
    @inline(__always)
    func offset(of index: Int) -> Int {
        Int(truncatingIfNeeded: unsigned(offsetTable + index * offsetSize, offsetSize))
    }

    /// The big-endian unsigned integer of the first `min(size, 8)` bytes at `at`, which are in the file.
    @inline(__always)
    func unsigned(_ at: Int, _ size: Int) -> UInt64 {
        let p = base + at
        switch size {
        case 1: return UInt64(p[0])
        case 2: return UInt64(p[0]) << 8 | UInt64(p[1])
        case 4: return UInt64(UInt32(bigEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt32.self)))
        case 8...: return UInt64(bigEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self))
        default:
            var v: UInt64 = 0
            for i in 0 ..< size { v = v << 8 | UInt64(p[i]) }
            return v
        }
    }
}
