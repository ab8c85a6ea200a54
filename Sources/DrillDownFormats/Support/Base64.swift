/// Standard base64 (RFC 4648, with padding), the text form of property-list data in a ``TreeStore``.
enum Base64 {
    static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// The value of each base64 byte, 0xFF for bytes outside the alphabet.
    static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = UInt8(i) }
        return table
    }()

    /// Appends the base64 encoding of `bytes` to `out`.
    static func encode(_ bytes: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        var i = 0
        let n = bytes.count
        out.reserveCapacity(out.count + (n + 2) / 3 * 4)
        while i + 3 <= n {
            let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            out.append(alphabet[Int(v >> 18)])
            out.append(alphabet[Int((v >> 12) & 63)])
            out.append(alphabet[Int((v >> 6) & 63)])
            out.append(alphabet[Int(v & 63)])
            i += 3
        }
        if n - i == 1 {
            let v = UInt32(bytes[i]) << 16
            out.append(alphabet[Int(v >> 18)])
            out.append(alphabet[Int((v >> 12) & 63)])
            out.append(0x3D)
            out.append(0x3D)
        } else if n - i == 2 {
            let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
            out.append(alphabet[Int(v >> 18)])
            out.append(alphabet[Int((v >> 12) & 63)])
            out.append(alphabet[Int((v >> 6) & 63)])
            out.append(0x3D)
        }
    }

    /// Decodes base64 text, ignoring whitespace; `nil` when a byte is outside the alphabet or
    /// the padding is wrong.
    static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.count / 4 * 3)
        var accumulator: UInt32 = 0
        var bits = 0
        var padding = 0
        for c in text {
            if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { continue }
            if c == 0x3D {
                padding += 1
                continue
            }
            let v = values[Int(c)]
            if v == 0xFF || padding > 0 { return nil }
            accumulator = accumulator << 6 | UInt32(v)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        if padding > 2 || bits >= 6 { return nil }
        return out
    }

    /// The canonical base64 text of `text` (whitespace removed, re-encoded), or `nil` when it is not base64.
    static func normalize(_ text: some Collection<UInt8>) -> [UInt8]? {
        guard let bytes = decode(text) else { return nil }
        var out: [UInt8] = []
        bytes.withUnsafeBufferPointer { encode($0, into: &out) }
        return out
    }
}
