@testable import DrillDownFormats
import Testing

/// ``JSONBytes`` reads plain strings, numbers and literals straight from the bytes and leaves the
/// rest to ``JSONParser``: both ways must accept the same tokens with the same text and end, and
/// the fast way must never accept what the parser rejects.
@Suite("JSON token reads at offsets against the parser")
struct JSONBytesTests {
    /// Random tokens built from the pieces where the two ways could differ: escapes, control
    /// bytes, valid and broken UTF-8, quotes, number forms, literal prefixes, the end of input.
    static func token(_ rng: inout SeededGenerator) -> [UInt8] {
        let pieces: [[UInt8]] = [
            Array("abc".utf8), Array(" ".utf8), Array("é".utf8), Array("😀".utf8), [0xC3], [0xE2, 0x82], [0xFF], [0x80],
            Array("\\n".utf8), Array("\\\"".utf8), Array("\\u00e9".utf8), Array("\\x".utf8), [0x09], [0x0A], [0x1F],
            Array("\"".utf8), Array("-".utf8), Array("0".utf8), Array("12".utf8), Array(".".utf8), Array("5".utf8),
            Array("e".utf8), Array("E+".utf8), Array("-3".utf8), Array("true".utf8), Array("tru".utf8), Array("false".utf8),
            Array("fals".utf8), Array("null".utf8), Array("nul".utf8), Array(":".utf8), Array(",".utf8), Array("}".utf8),
        ]
        var bytes: [UInt8] = []
        switch Int.random(in: 0 ..< 3, using: &rng) {
        case 0: bytes = Array("\"".utf8)
        case 1: bytes = Array(["-", "0", "7", "1"].randomElement(using: &rng)!.utf8)
        default: break
        }
        for _ in 0 ..< Int.random(in: 0 ..< 7, using: &rng) { bytes += pieces.randomElement(using: &rng)! }
        return bytes
    }

    @Test("scalars: the fast read agrees with the parser on kind, text and end, and fails where it fails")
    func scalars() {
        var rng = SeededGenerator(seed: 7)
        var fast = 0
        for _ in 0 ..< 20_000 {
            let bytes = Self.token(&rng)
            bytes.withUnsafeBufferPointer { buffer in
                guard !buffer.isEmpty else { return }
                let b = JSONBytes(buffer)
                var parser = b.parser(at: 0)
                let expected = try? parser.readScalar()
                if b.rawScalar(at: 0) != nil { fast += 1 }
                let got = try? b.scalar(at: 0)
                #expect(got?.kind == expected?.kind && got?.text == expected?.text && got?.end == expected?.end, "\(bytes)")
                let viaBuffer = try? b.withText(ofScalarAt: 0) { Array($0) }
                #expect(viaBuffer == expected?.text, "\(bytes)")
                if let raw = b.rawScalar(at: 0) { #expect(expected != nil, "accepted what the parser rejects: \(bytes)") }
            }
        }
        #expect(fast > 2_000, "the fast read took too few tokens to test it: \(fast)")
    }

    @Test("members: the fast read agrees with the parser on key and value offset, and fails where it fails")
    func members() {
        var rng = SeededGenerator(seed: 8)
        var fast = 0
        for _ in 0 ..< 20_000 {
            var bytes = Array("\"".utf8) + Self.token(&rng)
            if Bool.random(using: &rng) { bytes += Array(["\"k\"", "\"\" :", "\":", " : 1", ":"].randomElement(using: &rng)!.utf8) }
            bytes.withUnsafeBufferPointer { buffer in
                guard !buffer.isEmpty else { return }
                let b = JSONBytes(buffer)
                var parser = b.parser(at: 0)
                let expected = try? parser.readKey(afterComma: false)
                if b.rawMember(at: 0) != nil { fast += 1 }
                let got = try? b.member(at: 0, afterComma: false)
                #expect(got?.key == expected?.key && got?.value == expected?.value, "\(bytes)")
                let viaBuffer = try? b.withMember(at: 0, afterComma: false) { key, value in (Array(key), value) }
                #expect(viaBuffer?.0 == expected?.key && viaBuffer?.1 == expected?.value, "\(bytes)")
            }
        }
        #expect(fast > 500, "the fast read took too few members to test it: \(fast)")
    }
}
