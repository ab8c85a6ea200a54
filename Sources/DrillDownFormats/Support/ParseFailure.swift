import DrillDownCore

/// A reader's failure at a byte offset of its input; turned into a ``FormatError`` with a line
/// and column (or a byte offset) only once, when it is reported.
struct ParseFailure: Error, Sendable {
    /// The byte offset of the problem in the input.
    var offset: Int
    /// What was expected and what was found.
    var message: String
    /// Whether the format has lines (text) or only byte offsets (binary).
    var hasLines: Bool = true
    /// A line and column already known (for input that was transcoded before parsing).
    var knownLocation: (line: Int, column: Int)?

    init(offset: Int, _ message: String, hasLines: Bool = true) {
        self.offset = offset
        self.message = message
        self.hasLines = hasLines
    }

    /// A reservation the system refused: no place in the input to name.
    init(_ refused: ReservationFailure) {
        self.init(offset: 0, refused.description, hasLines: false)
    }

    /// The refusal of an object member whose key an earlier member has (see ``DuplicateKeys``): at
    /// byte `offset`, the earlier one at `earlier` (both where their keys start), `container` naming
    /// the object as the format does ("object", "<dict>", "dictionary").
    static func duplicateKey(
        _ key: String, at offset: Int, earlier: Int, in container: String, bytes: UnsafeBufferPointer<UInt8>
    ) -> ParseFailure {
        ParseFailure(
            offset: offset,
            "duplicate key '\(shown(key))' in \(container) (first at \(SourceLocation.text(of: earlier, in: bytes))); "
                + "a key may appear once per \(container)")
    }

    /// A key for messages, cut after 60 characters.
    static func shown(_ key: String) -> String { key.count > 60 ? String(key.prefix(60)) + "…" : key }

    /// The error for `file`, with the line and column computed from `bytes`.
    func formatError(file: String, bytes: UnsafeBufferPointer<UInt8>) -> FormatError {
        guard hasLines else { return FormatError(file: file, message: message) }
        if let (line, column) = knownLocation { return FormatError(file: file, line: line, column: column, message: message) }
        let (line, column) = SourceLocation.lineAndColumn(of: offset, in: bytes)
        return FormatError(file: file, line: line, column: column, message: message)
    }
}

/// Line and column arithmetic over UTF-8 bytes, done only when an error is reported.
enum SourceLocation {
    /// The 1-based line and column (counted in Unicode scalars) of byte `offset`.
    /// - Complexity: O(offset)
    static func lineAndColumn(of offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (line: Int, column: Int) {
        let end = min(max(offset, 0), bytes.count)
        var line = 1
        var lineStart = 0
        for i in 0 ..< end where bytes[i] == 0x0A {
            line += 1
            lineStart = i + 1
        }
        var column = 1
        for i in lineStart ..< end where bytes[i] & 0xC0 != 0x80 { column += 1 }
        return (line, column)
    }

    /// The 1-based line and column of byte `offset`, as text `line:column`.
    static func text(of offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> String {
        let (line, column) = lineAndColumn(of: offset, in: bytes)
        return "\(line):\(column)"
    }

    /// A short description of the byte at `offset` for messages: `']'`, `end of input`, `byte 0xC3`.
    static func describe(_ offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard offset < bytes.count else { return "end of input" }
        let b = bytes[offset]
        switch b {
        case 0x0A: return "a newline"
        case 0x0D: return "a carriage return"
        case 0x09: return "a tab"
        case 0x20: return "a space"
        case 0x21 ... 0x7E: return "'\(String(UnicodeScalar(b)))'"
        default:
            if b >= 0x80, let scalar = UTF8Validation.scalar(at: offset, in: bytes) {
                return "'\(String(Character(scalar)))'"
            }
            return "byte 0x\(String(b, radix: 16, uppercase: true))"
        }
    }
}
