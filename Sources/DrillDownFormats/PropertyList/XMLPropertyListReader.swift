import DrillDownCore

/// Reads XML property lists into a ``TreeStore``: ``XMLPropertyListFastParser`` writes the nodes
/// of a typical property list straight into the store's columns, and any input it declines (an
/// error, CDATA, a hex integer, …) is read again by ``XMLPropertyListParser``, a byte-level
/// tokenizer for the plist subset of XML that reports errors with their line and column.
///
/// Supports `<plist>`, `<dict>`, `<key>`, `<array>`, `<string>`, `<integer>` (decimal or `0x` hex),
/// `<real>`, `<true/>`, `<false/>`, `<date>` (ISO 8601), `<data>` (base64), the five named
/// entities and numeric character references (including `&#0;`, which our writer uses for NUL),
/// CDATA sections, comments, processing instructions and a DOCTYPE. UTF-8 input (UTF-16 with a byte-order mark is transcoded first). Nesting is
/// tracked on the heap up to ``maxDepth`` levels.
///
/// - Complexity: O(n) in the input size.
enum XMLPropertyListReader {
    /// The deepest nesting accepted.
    static let maxDepth = 10_000

    static func read(_ input: UnsafeBufferPointer<UInt8>) throws(ParseFailure) -> TreeStore {
        try UTF16Transcoding.withUTF8(input) { (buffer) throws(ParseFailure) -> TreeStore in
            if let bad = UTF8Validation.firstInvalidOffset(in: buffer) {
                throw ParseFailure(offset: bad, "invalid UTF-8 byte 0x\(String(buffer[bad], radix: 16, uppercase: true)); property lists must be UTF-8")
            }
            guard let base = buffer.baseAddress, !buffer.isEmpty else {
                throw ParseFailure(offset: 0, "empty document; expected an XML property list")
            }
            do throws(ReservationFailure) {
                if let tree = try XMLPropertyListFastParser.read(buffer) { return tree }
            } catch {
                throw ParseFailure(error)
            }
            var parser = XMLPropertyListParser(base: base, count: buffer.count)
            return try parser.parse()
        }
    }
}
