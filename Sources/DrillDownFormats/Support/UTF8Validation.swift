/// Strict UTF-8 validation (no overlongs, no surrogates, nothing past U+10FFFF).
enum UTF8Validation {
    /// The length of the valid UTF-8 sequence starting at `p` whose first byte is ≥ 0x80, or 0 when invalid.
    @inline(__always)
    static func sequenceLength(_ p: UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>) -> Int {
        let b0 = p[0]
        let available = end - p
        if b0 >= 0xC2 && b0 <= 0xDF {
            return available >= 2 && p[1] & 0xC0 == 0x80 ? 2 : 0
        }
        if b0 >= 0xE0 && b0 <= 0xEF {
            guard available >= 3 else { return 0 }
            let b1 = p[1]
            let low: UInt8 = b0 == 0xE0 ? 0xA0 : 0x80
            let high: UInt8 = b0 == 0xED ? 0x9F : 0xBF
            return b1 >= low && b1 <= high && p[2] & 0xC0 == 0x80 ? 3 : 0
        }
        if b0 >= 0xF0 && b0 <= 0xF4 {
            guard available >= 4 else { return 0 }
            let b1 = p[1]
            let low: UInt8 = b0 == 0xF0 ? 0x90 : 0x80
            let high: UInt8 = b0 == 0xF4 ? 0x8F : 0xBF
            return b1 >= low && b1 <= high && p[2] & 0xC0 == 0x80 && p[3] & 0xC0 == 0x80 ? 4 : 0
        }
        return 0
    }

    /// The offset of the first invalid UTF-8 byte in `bytes`, or `nil` when all of it is valid.
    /// - Complexity: O(n), with a 32- and 8-bytes-at-a-time fast path for ASCII.
    static func firstInvalidOffset(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        let end = base + bytes.count
        var p = base
        while p < end {
            if end - p >= 32 {
                let raw = UnsafeRawPointer(p)
                let any = raw.loadUnaligned(as: UInt64.self) | raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
                    | raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self) | raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
                if any & 0x8080_8080_8080_8080 == 0 {
                    p += 32
                    continue
                }
            }
            if end - p >= 8 {
                let word = UnsafeRawPointer(p).loadUnaligned(as: UInt64.self)
                if word & 0x8080_8080_8080_8080 == 0 {
                    p += 8
                    continue
                }
            }
            if p[0] < 0x80 {
                p += 1
                continue
            }
            let n = sequenceLength(p, end)
            if n == 0 { return p - base }
            p += n
        }
        return nil
    }

    /// The Unicode scalar starting at `offset`, when a valid sequence starts there.
    static func scalar(at offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Unicode.Scalar? {
        guard let base = bytes.baseAddress, offset < bytes.count else { return nil }
        let p = base + offset
        let n = p[0] < 0x80 ? 1 : sequenceLength(p, base + bytes.count)
        guard n > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self).unicodeScalars.first
    }

    /// Appends the UTF-8 encoding of `scalar` to `out`.
    @inline(__always)
    static func append(_ scalar: UInt32, to out: inout some ByteSink) {
        if scalar < 0x80 {
            out.append(UInt8(scalar))
        } else if scalar < 0x800 {
            out.append(UInt8(0xC0 | (scalar >> 6)))
            out.append(UInt8(0x80 | (scalar & 0x3F)))
        } else if scalar < 0x10000 {
            out.append(UInt8(0xE0 | (scalar >> 12)))
            out.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (scalar & 0x3F)))
        } else {
            out.append(UInt8(0xF0 | (scalar >> 18)))
            out.append(UInt8(0x80 | ((scalar >> 12) & 0x3F)))
            out.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (scalar & 0x3F)))
        }
    }
}
