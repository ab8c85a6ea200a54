import DrillDownCore

/// Reads OpenStep (NeXTSTEP, "old-style ASCII") property lists into a ``TreeStore``.
///
/// Supports dictionaries `{ key = value; }`, arrays `( a, b )` (a trailing comma is allowed, as
/// Apple's reader allows it), quoted strings (`"…"` or `'…'`, with `\n`, `\t`, `\"`, octal `\012`
/// and `\U00E9` escapes), unquoted strings of `A-Za-z0-9_$+/:.-`, hex data `<0fbd 7788>`, and
/// `//` and `/* */` comments. A `.strings` file — entries `"key" = "value";` without braces,
/// and the shorthand `"key";` meaning `"key" = "key";` — reads as a dictionary.
///
/// The format has no numbers, booleans or dates: every scalar is a `.string` (data is `.data`).
///
/// - Complexity: O(n) in the input size; no recursion.
enum OpenStepReader {
    /// The deepest nesting accepted.
    static let maxDepth = 10_000

    static func read(_ input: UnsafeBufferPointer<UInt8>) throws(ParseFailure) -> TreeStore {
        try UTF16Transcoding.withUTF8(input) { (buffer) throws(ParseFailure) -> TreeStore in
            if let bad = UTF8Validation.firstInvalidOffset(in: buffer) {
                throw ParseFailure(offset: bad, "invalid UTF-8 byte 0x\(String(buffer[bad], radix: 16, uppercase: true)); OpenStep property lists must be UTF-8")
            }
            guard let base = buffer.baseAddress, !buffer.isEmpty else {
                throw ParseFailure(offset: 0, "empty document; expected an OpenStep property list")
            }
            var parser = OpenStepParser(base: base, count: buffer.count)
            return try parser.parse()
        }
    }
}
