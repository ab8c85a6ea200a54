/// Splits CSV (RFC 4180) into records: fields separated by commas, records ended by CRLF, LF or
/// CR, a field in double quotes may hold commas, line breaks and doubled quotes. Blank lines are
/// skipped; a quote inside an unquoted field is kept as written (as Python's `csv` does).
///
/// A record's fields are byte ranges of the input, decoded only when asked (``decode(_:into:)``).
struct CSVParser {
    /// One field: where it starts and ends in the input (quotes excluded) and whether it was quoted.
    struct FieldRange {
        var start: Int, end: Int, quoted: Bool
    }

    let bytes: UnsafeBufferPointer<UInt8>
    var p: Int
    /// The fields of the record read last.
    var fields: [FieldRange] = []
    /// Where the record read last starts and where it ends (before its line break).
    var recordStart = 0, recordEnd = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        p = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    }

    /// Reads the next record into ``fields``; `false` at the end of the input.
    /// - Throws: a ``ParseFailure`` at an unterminated quoted field, or at text after a closing quote.
    mutating func nextRecord() throws(ParseFailure) -> Bool {
        fields.removeAll(keepingCapacity: true)
        while p < bytes.count, bytes[p] == 0x0A || bytes[p] == 0x0D { p += 1 }
        guard p < bytes.count else { return false }
        recordStart = p
        while true {
            let (field, atEnd) = try nextField()
            fields.append(field)
            if atEnd { return true }
        }
    }

    /// Reads one field and the separator after it; `atEnd` when a line break or the input's end followed.
    mutating func nextField() throws(ParseFailure) -> (FieldRange, atEnd: Bool) {
        let start = p
        if p < bytes.count, bytes[p] == Self.quote {
            p += 1
            while true {
                guard p < bytes.count else {
                    throw ParseFailure(offset: start, "unterminated quoted field: the '\"' here is never closed; expected a closing '\"'")
                }
                if bytes[p] == Self.quote {
                    if p + 1 < bytes.count, bytes[p + 1] == Self.quote {
                        p += 2
                        continue
                    }
                    break
                }
                p += 1
            }
            let field = FieldRange(start: start + 1, end: p, quoted: true)
            p += 1
            guard p < bytes.count else {
                recordEnd = p
                return (field, true)
            }
            switch bytes[p] {
            case Self.comma:
                p += 1
                return (field, false)
            case 0x0A, 0x0D:
                endLine()
                return (field, true)
            default:
                let found = SourceLocation.describe(p, in: bytes)
                throw ParseFailure(offset: p, "expected ',' or a line break after the closing quote, found \(found); double a quote inside a quoted field (\"\")")
            }
        }
        while p < bytes.count {
            switch bytes[p] {
            case Self.comma:
                let field = FieldRange(start: start, end: p, quoted: false)
                p += 1
                return (field, false)
            case 0x0A, 0x0D:
                let field = FieldRange(start: start, end: p, quoted: false)
                endLine()
                return (field, true)
            default:
                p += 1
            }
        }
        recordEnd = p
        return (FieldRange(start: start, end: p, quoted: false), true)
    }

    /// Steps over a line break (CRLF, LF or CR) at the cursor.
    mutating func endLine() {
        recordEnd = p
        if bytes[p] == 0x0D, p + 1 < bytes.count, bytes[p + 1] == 0x0A { p += 2 } else { p += 1 }
    }

    /// Appends the field's text to `out`, a doubled quote made one.
    func decode(_ field: FieldRange, into out: inout [UInt8]) {
        guard field.quoted else {
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[field.start ..< field.end]))
            return
        }
        var i = field.start
        while i < field.end {
            let b = bytes[i]
            out.append(b)
            i += b == Self.quote ? 2 : 1
        }
    }

    static let comma = UInt8(ascii: ","), quote = UInt8(ascii: "\"")
}
