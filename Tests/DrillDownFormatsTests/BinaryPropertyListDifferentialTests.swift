import DrillDownCore
@testable import DrillDownFormats
import Testing

/// The binary property-list fast path (``BinaryPropertyListFastParser``) against the full parser
/// (``BinaryPropertyListParser``) that reads whatever it declines: on every input the fast path
/// accepts, both build the same tree (same ids, parents, kinds and text); it never accepts what
/// the full parser rejects; and it does accept the common shapes.
@Suite("Binary property-list fast path against the full parser")
struct BinaryPropertyListDifferentialTests {
    enum Verdict { case same, declined, invalid }

    @discardableResult
    static func compare(_ bytes: [UInt8], limit: ExpansionLimit = .default, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Verdict {
        bytes.withUnsafeBufferPointer { buffer in
            let fast = (try? BinaryPropertyListFastParser.read(buffer, limit: limit)) ?? nil
            var full: TreeStore?
            var failure: ParseFailure?
            do throws(ParseFailure) {
                var parser = try BinaryPropertyListParser(buffer, limit: limit)
                full = try parser.parse()
            } catch {
                failure = error
            }
            switch (fast, full) {
            case (let f?, let o?):
                #expect(dump(f) == dump(o), "different trees for \(bytes.prefix(200))", sourceLocation: sourceLocation)
                return .same
            case (_?, nil):
                Issue.record("fast path accepted an invalid plist (\(failure?.message ?? "")) \(bytes.prefix(200))", sourceLocation: sourceLocation)
                return .invalid
            case (nil, _?):
                return .declined
            case (nil, nil):
                return .invalid
            }
        }
    }

    /// Every column of every node, in id order.
    static func dump(_ t: TreeStore) -> [String] {
        t.nodes.map { n in
            let children = t.children(of: n).map(\.rawValue)
            return "\(t.kind(of: n).rawValue)|\(t.title(of: n))|\(Array(t.valueBytes(of: n)))|\(children)|\(t.parent(of: n)?.rawValue ?? -1)"
        }
    }

    /// A binary property list under construction: objects as encoded scalars or containers' references.
    struct Builder {
        enum Object {
            case scalar([UInt8])
            case container(UInt8, [Int])
        }

        var objects: [Object] = []
        var rng: SeededGenerator
        var common: Bool
        /// Containers being built (a reference to one is a cycle).
        var open: [Int] = []
        /// Objects finished so far, for sharing.
        var done: [Int] = []

        mutating func add(_ o: Object) -> Int {
            objects.append(o)
            return objects.count - 1
        }

        /// A marker with its length, in the marker or (sometimes, or when ≥ 15) in an integer after it.
        mutating func header(_ nibble: UInt8, _ count: Int) -> [UInt8] {
            if count < 15 && (common || Int.random(in: 0 ..< 5, using: &rng) > 0) { return [nibble << 4 | UInt8(count)] }
            let widths = [1, 2, 4, 8].filter { $0 == 8 || count < 1 << (8 * $0) }
            let w = widths.randomElement(using: &rng)!
            return [nibble << 4 | 0x0F, 0x10 | UInt8(w.trailingZeroBitCount)] + Self.bigEndian(UInt64(count), w)
        }

        static func bigEndian(_ v: UInt64, _ width: Int) -> [UInt8] {
            (0 ..< width).map { UInt8(truncatingIfNeeded: v >> UInt64(8 * (width - 1 - $0))) }
        }

        /// A random string object; `suffix` ends its text (common documents' keys, which must differ).
        mutating func string(suffix: String = "") -> [UInt8] {
            let pieces = ["a", "Row 1.2", "title", "", " ", "0123456789abcdefghij"]
            let text = (0 ..< Int.random(in: 0 ..< 4, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined() + suffix
            switch Int.random(in: 0 ..< (common ? 3 : 5), using: &rng) {
            case 0:
                return header(0x5, text.utf8.count) + Array(text.utf8)
            case 1:
                let units = Array((text + ["é", "😀", "日本", "x"].randomElement(using: &rng)!).utf16)
                return header(0x6, units.count) + units.flatMap { Self.bigEndian(UInt64($0), 2) }
            case 2:
                let latin = Array(text.utf8) + [0xE9, 0x41, 0xFF].shuffled(using: &rng)
                return header(0x5, latin.count) + latin
            case 3:
                // Unpaired surrogates become U+FFFD.
                let units: [UInt16] = [[0xD800], [0xDC00, 0x41], [0xD83D, 0xDE00], [0x41, 0xDBFF], [0xD800, 0xD800, 0xDC00]].randomElement(using: &rng)!
                return header(0x6, units.count) + units.flatMap { Self.bigEndian(UInt64($0), 2) }
            default:
                let utf8: [UInt8] = [Array("é".utf8), [0xC3], [0xFF, 0x41], Array("ok".utf8)].randomElement(using: &rng)!
                return header(0x7, utf8.count) + utf8
            }
        }

        mutating func scalar() -> [UInt8] {
            switch Int.random(in: 0 ..< 9, using: &rng) {
            case 0: return [[0x08], [0x09], [0x00]].randomElement(using: &rng)!
            case 1:
                let size = common ? [0, 1, 2, 3].randomElement(using: &rng)! : Int.random(in: 0 ... 5, using: &rng)
                var bytes = (0 ..< (1 << size)).map { _ in UInt8.random(in: 0 ... 255, using: &rng) }
                if size == 4 && Bool.random(using: &rng) {
                    let negative = Bool.random(using: &rng)
                    for i in 0 ..< 8 { bytes[i] = negative ? 0xFF : 0 }
                    if negative { bytes[8] |= 0x80 }
                }
                return [0x10 | UInt8(size)] + bytes.prefix(common ? 1 << size : max(0, (1 << size) - Int.random(in: -1 ... 0, using: &rng)))
            case 2:
                let double = [0, 1.5, -2.25e-3, 1e300, .nan, .infinity, -0.0, Double.random(in: -1e9 ... 1e9, using: &rng)].randomElement(using: &rng)!
                if !common && Bool.random(using: &rng) { return [0x22] + Self.bigEndian(UInt64(Float(double).bitPattern), 4) }
                return [0x23] + Self.bigEndian(double.bitPattern, 8)
            case 3:
                let seconds = common ? Double(Int.random(in: -1_000_000_000 ... 1_000_000_000, using: &rng)) : [1e20, -7e10, 0.0005, 3.25, .nan].randomElement(using: &rng)!
                return [0x33] + Self.bigEndian(seconds.bitPattern, 8)
            case 4:
                let data = (0 ..< Int.random(in: 0 ..< 20, using: &rng)).map { _ in UInt8.random(in: 0 ... 255, using: &rng) }
                return header(0x4, data.count) + data
            case 5 where !common:
                let size = Int.random(in: 0 ..< 16, using: &rng)
                return [0x80 | UInt8(size)] + (0 ... size).map { _ in UInt8.random(in: 0 ... 255, using: &rng) }
            case 6 where !common:
                return [[0x0F], [0x34], [0x21], [0x90], [0xB0], [0xE0], [0xF0]].randomElement(using: &rng)!
            default:
                return string()
            }
        }

        /// A random value, its object index returned (shared with an earlier one sometimes).
        mutating func value(_ depth: Int) -> Int {
            if !done.isEmpty && Int.random(in: 0 ..< (common ? 12 : 6), using: &rng) == 0 { return done.randomElement(using: &rng)! }
            if !common && !open.isEmpty && Int.random(in: 0 ..< 40, using: &rng) == 0 { return open.randomElement(using: &rng)! }
            if depth > 4 || Int.random(in: 0 ..< 3, using: &rng) > 0 {
                let index = add(.scalar(scalar()))
                done.append(index)
                return index
            }
            let nibble: UInt8 = [0xA, 0xD, 0xD, common ? 0xA : 0xC].randomElement(using: &rng)!
            let index = add(.container(nibble, []))
            open.append(index)
            let n = Int.random(in: 0 ..< 6, using: &rng)
            var refs: [Int] = []
            if nibble == 0xD {
                var keys: [Int] = []
                // In common documents a key may appear once per dictionary: one shared key at
                // most, and new keys end with `#` and their position (no value holds a `#`).
                var shared = false
                for i in 0 ..< n {
                    if !done.isEmpty && !(common && shared) && Bool.random(using: &rng), case .scalar(let s) = objects[done.last!],
                        s[0] >> 4 == 5 || common == false
                    {
                        keys.append(done.last!)
                        shared = true
                    } else {
                        keys.append(add(.scalar(string(suffix: common ? "#\(i)" : ""))))
                    }
                    refs.append(value(depth + 1))
                }
                refs = keys + refs
            } else {
                for _ in 0 ..< n { refs.append(value(depth + 1)) }
            }
            objects[index] = .container(nibble, refs)
            open.removeLast()
            done.append(index)
            return index
        }

        /// The file: header, objects, offset table and trailer, with the narrowest or random widths.
        mutating func encode(top: Int) -> [UInt8] {
            let refSize = common ? (objects.count < 256 ? 1 : 2) : [1, 2, 3, 4, 8].randomElement(using: &rng)!
            var out = Array("bplist00".utf8)
            var offsets: [Int] = []
            for o in objects {
                offsets.append(out.count)
                switch o {
                case .scalar(let bytes): out += bytes
                case .container(let nibble, let refs):
                    out += header(nibble, nibble == 0xD ? refs.count / 2 : refs.count)
                    for r in refs { out += Self.bigEndian(UInt64(r), refSize) }
                }
            }
            let table = out.count
            let offsetSize = common ? (table < 256 ? 1 : 2) : [1, 2, 4, 8].filter { $0 == 8 || table < 1 << (8 * $0) }.randomElement(using: &rng)!
            for o in offsets { out += Self.bigEndian(UInt64(o), offsetSize) }
            out += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(refSize)]
            out += Self.bigEndian(UInt64(objects.count), 8) + Self.bigEndian(UInt64(top), 8) + Self.bigEndian(UInt64(table), 8)
            return out
        }
    }

    static func document(common: Bool, _ rng: inout SeededGenerator) -> [UInt8] {
        var b = Builder(rng: rng, common: common)
        let top = b.value(0)
        let bytes = b.encode(top: top)
        rng = b.rng
        return bytes
    }

    @Test("common documents: the fast path reads them all, with the same tree")
    func commonDocuments() {
        var rng = SeededGenerator(seed: 53)
        for _ in 0 ..< 2000 {
            #expect(Self.compare(Self.document(common: true, &rng)) == .same)
        }
    }

    @Test("documents with every construct give the same tree, or the fast path declines")
    func anyDocuments() {
        var rng = SeededGenerator(seed: 59)
        var verdicts: [Verdict: Int] = [:]
        for _ in 0 ..< 4000 {
            verdicts[Self.compare(Self.document(common: Bool.random(using: &rng), &rng)), default: 0] += 1
        }
        #expect(verdicts[.same, default: 0] > 1000 && verdicts[.invalid, default: 0] > 100)
    }

    @Test("damaged documents: never accepted by the fast path alone")
    func damagedDocuments() {
        var rng = SeededGenerator(seed: 61)
        for _ in 0 ..< 6000 {
            var bytes = Self.document(common: true, &rng)
            for _ in 0 ..< Int.random(in: 1 ... 3, using: &rng) {
                let i = Int.random(in: 0 ..< bytes.count, using: &rng)
                switch Int.random(in: 0 ..< 4, using: &rng) {
                case 0: bytes[i] = UInt8.random(in: 0 ... 255, using: &rng)
                case 1: bytes[i] ^= 1 << UInt8.random(in: 0 ..< 8, using: &rng)
                case 2: bytes[i] = [0x00, 0x01, 0x0F, 0xFF, 0xD1, 0xAF].randomElement(using: &rng)!
                default: bytes[bytes.count - 32 + Int.random(in: 6 ..< 32, using: &rng)] = UInt8.random(in: 0 ... 9, using: &rng)
                }
            }
            Self.compare(bytes)
        }
    }

    @Test("limits: shared references past the expansion limit, nesting at the depth limit, cycles")
    func limits() {
        // A chain of arrays each holding the next one twice: 2^k nodes from k objects.
        func doubling(_ k: Int) -> [UInt8] {
            var b = Builder(rng: SeededGenerator(seed: 1), common: true)
            var next = b.add(.scalar([0x09]))
            for _ in 0 ..< k { next = b.add(.container(0xA, [next, next])) }
            return b.encode(top: next)
        }
        #expect(Self.compare(doubling(10)) == .same)
        #expect(Self.compare(doubling(40)) == .invalid)
        // 2^19 - 1 nodes fit the floor of a million, 2^20 - 1 do not.
        #expect(Self.compare(doubling(18)) == .same)
        #expect(Self.compare(doubling(19)) == .invalid)
        let limit = BinaryPropertyListReader.maxDepth
        for depth in [limit - 1, limit, limit + 1] {
            var b = Builder(rng: SeededGenerator(seed: 2), common: true)
            var next = b.add(.container(0xA, []))
            for _ in 1 ..< depth { next = b.add(.container(0xA, [next])) }
            #expect(Self.compare(b.encode(top: next)) == (depth <= limit ? .same : .invalid))
        }
        var b = Builder(rng: SeededGenerator(seed: 3), common: true)
        _ = b.add(.container(0xA, [1]))
        _ = b.add(.container(0xD, [2, 0]))
        _ = b.add(.scalar([0x51, 0x6B]))
        #expect(Self.compare(b.encode(top: 0)) == .invalid)
        #expect(Self.compare(b.encode(top: 2)) == .same)
    }
}
