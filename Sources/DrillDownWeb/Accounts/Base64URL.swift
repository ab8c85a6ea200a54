/// Base64url without padding (RFC 4648 §5), as the session cookie writes its id and MAC: a third
/// shorter than hex, and every byte of a cookie is parsed and split again on each request.
/// Decoding writes into a buffer the caller gives (the MAC of a request's cookie is decoded onto
/// the stack when its session is kept, see ``SessionCookie/spells(_:_:)``).
enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// `bytes` encoded, without `=` padding.
    static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var out = [UInt8]()
        out.reserveCapacity((bytes.underestimatedCount * 4 + 2) / 3)
        var bits = 0, count = 0
        for byte in bytes {
            bits = bits << 8 | Int(byte)
            count += 8
            while count >= 6 {
                count -= 6
                out.append(alphabet[(bits >> count) & 63])
            }
        }
        if count > 0 { out.append(alphabet[(bits << (6 - count)) & 63]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// How many bytes `characters` base64url characters hold (`nil`: no whole number of bytes).
    static func decodedCount(_ characters: Int) -> Int? { characters % 4 == 1 ? nil : characters * 6 / 8 }

    /// Decodes `text` into `out`, which must hold exactly ``decodedCount(_:)`` bytes; `false` when
    /// `text` has a character outside the alphabet or bits left over that are not zero (so each
    /// value has one spelling).
    static func decode(_ text: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableRawBufferPointer) -> Bool {
        guard decodedCount(text.count) == out.count else { return false }
        return values.withUnsafeBufferPointer { values in
            // Four characters make three bytes; a value of 64 or more marks a byte outside the alphabet.
            var bad: UInt32 = 0, i = 0, k = 0
            let whole = text.count / 4 * 4
            while i < whole {
                let word = UInt32(values[Int(text[i])]) << 18 | UInt32(values[Int(text[i + 1])]) << 12
                    | UInt32(values[Int(text[i + 2])]) << 6 | UInt32(values[Int(text[i + 3])])
                bad |= UInt32(values[Int(text[i])] | values[Int(text[i + 1])] | values[Int(text[i + 2])] | values[Int(text[i + 3])])
                out[k] = UInt8(truncatingIfNeeded: word >> 16)
                out[k + 1] = UInt8(truncatingIfNeeded: word >> 8)
                out[k + 2] = UInt8(truncatingIfNeeded: word)
                i += 4
                k += 3
            }
            // The last two or three characters: one or two bytes, and bits left over that must be zero.
            var bits: UInt32 = 0, count: UInt32 = 0
            while i < text.count {
                let value = values[Int(text[i])]
                bad |= UInt32(value)
                bits = bits << 6 | UInt32(value & 63)
                count += 6
                if count >= 8 {
                    count -= 8
                    out[k] = UInt8(truncatingIfNeeded: bits >> count)
                    k += 1
                }
                i += 1
            }
            return bad & 64 == 0 && bits & ((1 << count) - 1) == 0
        }
    }

    /// Each byte's value in the alphabet, or 64 for a byte outside it.
    private static let values: [UInt8] = {
        var values = [UInt8](repeating: 64, count: 256)
        for (k, c) in alphabet.enumerated() { values[Int(c)] = UInt8(k) }
        return values
    }()

    /// `text` decoded; `nil` when it is not base64url.
    static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { utf8 in
            guard let n = decodedCount(utf8.count) else { return nil }
            var out = [UInt8](repeating: 0, count: n)
            let ok = out.withUnsafeMutableBytes { decode(utf8, into: $0) }
            return ok ? out : nil
        }
    }
}
